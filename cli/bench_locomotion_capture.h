/* skelanim bench locomotion: the capture rows (bench_locomotion_capture.c).
 * The CMU walks and run of the shared data retargeted onto the mannequin and
 * CesiumMan and driven by the locomotion runtime over the terrains; the cost
 * of 1,000 mannequins driven by retargeted captures. */
#ifndef SK_CLI_BENCH_LOCOMOTION_CAPTURE_H
#define SK_CLI_BENCH_LOCOMOTION_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum blc_which { BLC_NONE = 0, BLC_CI = 1, BLC_ALL = 2 } blc_which;

/* The capture rows, one JSON line each ("bench": "locomotion_capture"):
 * BLC_ALL every walk on every terrain and the run on the running terrains at
 * two speeds, and the hard cases (turning in place, a 180 degree turn,
 * sidestepping, stopping mid-stride; "hard": the name) with 02_01 on flat
 * ground at 0.5, 1.0 and 1.8 m/s; BLC_CI a subset (02_01 on flat, stairs and
 * the course, the run on flat, the hard cases at 1.0 m/s). data: the shared data folder (DIR/mocap/bvh,
 * DIR/assets/gltf/CesiumMan). Without it one line says so
 * ("missing": the path; the status stays 0: a test decides whether that
 * is a failure). Returns 0, or 1 when a row
 * could not be run (a row outside the limits is not a failure: it says so
 * in its "fails" list). */
int blc_table(blc_which which, const char *data);
/* The held-out rows ("held_out": true): the walks and runs of the reporting
 * half of a capture folder (dir/split.tsv, as tests/data/cmu: captures no
 * threshold was chosen on), each walk with the folder's first reporting run
 * on flat ground, stairs and the mesh course at 1.0 and 1.4 m/s, each run
 * with its first walk on flat ground at 3.0 and 3.5 m/s, on the mannequin
 * and CesiumMan (under data). half "tuning" takes the folder's tuning half
 * instead (rows marked "half": "tuning"; NULL or "reporting": the reporting
 * half). A pair that cannot be retargeted or analysed is a row with "error".
 * character: a file (or @mannequin) walked instead of the mannequin and
 * CesiumMan, its rows named by the file's stem; NULL: those two.
 * Returns 1 when the folder, its half or the character is missing or a row
 * could not be run. */
int blc_held_out(const char *dir, const char *half, const char *data, const char *character);
/* The locomotion step (advance + adjust) of count mannequins driven by the
 * CMU walk 02_01 and run 09_11 retargeted once at load, on the mesh course,
 * one JSON line ("bench": "locomotion_capture_cost"). */
int blc_cost(uint32_t count, uint32_t frames, uint32_t group, const char *data);

#endif
