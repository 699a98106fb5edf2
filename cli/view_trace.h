/* skelanim command-line tool: `skelanim view TRACE.jsonl` replays a walk
 * recorded by `skelanim locomote --trace` in the SDL2 window (cli/view_trace.c):
 * the skeleton as bones from the trace's joint positions (the first line's
 * "parents"; an older trace without them shows the feet only), the terrain
 * of its "terrain" spec, and the locomotion debugging view (loco_overlay.h)
 * from the overlay fields of each line; O toggles it. The camera follows the
 * character; space pauses, left/right step a frame, up/down change the
 * speed, r resets the camera. */
#ifndef SK_CLI_VIEW_TRACE_H
#define SK_CLI_VIEW_TRACE_H

#include "skelanim.h"

typedef struct view_trace_opts {
    const char *file;
    int w, h;
    uint32_t frames;         /* scripted: this many frames at 1/30 s, then exit (0: until closed) */
    const char *screenshot;  /* scripted: the last frame to this PNG */
    const char *keys;        /* scripted key presses, one per frame from the second on */
    bool overlay;            /* start with the debugging view on */
    bool print_state;        /* print each frame's state (scripted runs) */
} view_trace_opts;

/* A file name that view takes for a trace (ends in .jsonl). */
bool view_trace_is(const char *file);
/* Runs the viewer; the exit status (errors printed). */
int view_trace_run(const view_trace_opts *o);

#endif
