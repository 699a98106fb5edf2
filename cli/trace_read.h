/* skelanim command-line tool: a `locomote --trace` file read back, for
 * `view TRACE.jsonl` (view_trace.h): per frame the time, the character's
 * ground point, every joint's world position (the first line's joint count
 * for all), each foot's heel, ankle and toe, and the debugging view's
 * fields when the trace has them (loco_overlay.h); from the first line the
 * skeleton's parents, the path and the terrain spec when given. Lines may
 * be blank; times must increase. A file is read or refused with a message
 * on stderr naming the file and line: never a crash, whatever the bytes
 * (fuzz/fuzz_trace.c). */
#ifndef SK_CLI_TRACE_READ_H
#define SK_CLI_TRACE_READ_H

#include "loco_overlay.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_MAX_JOINTS 4096u
#define TRACE_MAX_LINES 2000000u

typedef struct trace {
    uint32_t n, cap, joints;
    double *t;
    sk_vec3 *root;
    float *pos;                   /* n x joints x 3 */
    loco_overlay_frame *ov;       /* n */
    bool *has_ov;
    int32_t *parents;             /* joints, or NULL */
    float path[2 * SK_PATH_MAX_POINTS];
    uint32_t path_n;
    char *terrain;                /* the spec, or NULL */
    /* feet (heel, ankle, toe) of each frame, for traces without parents */
    sk_vec3 *feet;                /* n x legs x 3 */
    uint32_t legs;
} trace;

/* Reads the lines of f (file names it in messages) into *tr (zeroed
 * first): true, or false after a message with *tr freed. */
bool trace_read(FILE *f, const char *file, trace *tr);
void trace_free(trace *tr);

#endif
