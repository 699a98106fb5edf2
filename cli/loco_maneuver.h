/* skelanim command-line tool: scripted maneuvers, the hard cases users
 * report for foot placement (turning in place at 90 degrees/s, a 180 degree
 * turn within a second, sidestepping, stopping mid-stride):
 * `locomote --maneuver NAME` and the rows of `bench locomotion`. */
#ifndef SK_CLI_LOCO_MANEUVER_H
#define SK_CLI_LOCO_MANEUVER_H

#include "loco_run.h"

#define LOCO_MANEUVERS 4u

/* Maneuver i's name ("turn-in-place", "turn-180", "sidestep",
 * "stop-mid-stride"), NULL past the last; its index by name, or -1. */
const char *loco_maneuver_name(uint32_t i);
int loco_maneuver_find(const char *name);

/* Runs maneuver which (< LOCO_MANEUVERS) at cruise speed v (m/s; turning in
 * place ignores it) at fps from the origin facing +Z, for seconds (<= 0: the
 * maneuver's own length, 6-7 s), adding every frame to m (initialised here)
 * and calling frame (may be NULL) after each step. twist_deg (may be NULL):
 * the largest angle between a planted foot's heading and the body's.
 * false after printing on a failed step. */
bool loco_run_maneuver(loco_char *c, uint32_t which, double v, double fps, double seconds, loco_metrics *m,
                       double *twist_deg, loco_frame_fn frame, void *user);

/* The maneuvers' rows of `bench locomotion` on character (NULL: the
 * mannequin) with its clips (nclips 0: walk and run) at 0.5, 1.0 and 1.8
 * m/s (quick: 1.0); JSON lines. 0, or 1 after printing a failure. */
int bench_locomotion_hard(bool quick, const char *character, const char *const *clips, uint32_t nclips);

#endif
