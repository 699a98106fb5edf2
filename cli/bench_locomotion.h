/* skelanim bench locomotion: the crowd cost measure, shared by the rows of
 * the mannequin's own clips and of the captures (bench_locomotion_capture.c). */
#ifndef SK_CLI_BENCH_LOCOMOTION_H
#define SK_CLI_BENCH_LOCOMOTION_H

#include "loco_run.h"

/* count copies of c's locomotor on lanes across c's terrain (the course),
 * walking at 1.4 m/s for 30 warm-up frames and frames timed ones: the
 * locomotion step (advance + adjust) and the model matrices, one JSON line
 * {"bench": bench, extra (JSON members, may be NULL), ...}. group 0: each
 * stage over every character before the next ("order": "passes"); else over
 * group characters at a time ("order": "groups"). 0, or 1 after printing the
 * error. */
int bl_cost_crowd(const loco_char *c, const char *bench, const char *extra, uint32_t count, uint32_t frames,
                  uint32_t group);
/* The push rows of bench locomotion --procedural (bench_locomotion_push.c):
 * pushes of 0.5 to 3 m/s (quick: 0.5) in four directions while walking, and
 * the strongest recovered per direction. 0, or 1 after printing a failure. */
int bl_push_rows(bool quick);
/* The N-legged walker's rows (bench_locomotion_legged.c): the creatures in
 * their gaits over the table's terrains at 0.5 and 1.0 m/s (quick: 1.0).
 * 0, or 1 after printing a failure. */
int bl_legged_rows(bool quick);

#endif
