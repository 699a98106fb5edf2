/* skelanim command-line tool: a locomotion test course as a triangle mesh,
 * built in code (issue #10: "a triangle-mesh course you build as a .glb";
 * `skelanim export-course OUT.glb` writes it, `--terrain course` uses it).
 *
 * 16 m wide (x in [-8, 8]), along +Z from z = -2 to 26 m:
 *   z  -2 ..  3    flat at y = 0
 *   z   3 ..  6    ramp up, 10 degrees
 *   z   6 ..  7.5  flat
 *   z 7.5 ..  9.3  six steps up, rise 0.15 m, run 0.30 m (vertical risers)
 *   z 9.3 .. 11    flat
 *   z  11 .. 16    bumps: 0.08 m x sin(2 pi x / 1.9) sin(2 pi (z - 11) / 2.5)
 *   z  16 .. 18    ramp down, 20 degrees
 *   z  18 .. 19.5  flat
 *   z 19.5 .. 20.7 four steps down, 0.15 m
 *   z 20.7 .. 26   flat
 * About 6,000 triangles; rows of 33 vertices, 0.5 m apart across. */
#ifndef SK_CLI_COURSE_H
#define SK_CLI_COURSE_H

#include "skelanim.h"

sk_result cli_course_asset(sk_asset **out, sk_error *err);

#endif
