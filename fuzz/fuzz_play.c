/* Harness: the scripts of `skelanim play --script` (cli/play_input.c), read
 * from the input bytes. Promises checked: a script is read or refused
 * (never a crash or an out-of-bounds read, whatever the bytes: no newline,
 * NUL bytes, huge numbers, NaN); a script read has at most 100000 events,
 * finite times that never decrease, axis values in [-1, 1] and finite
 * click and drag coordinates. */
#include "fuzz_common.h"
#include "play_input.h"

#include <math.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = fmemopen(size ? (void *)data : (void *)"", size ? size : 1, "r");
    if (!f) return 0;
    play_script s;
    if (play_script_read(f, "fuzz", &s)) {
        if (s.n > 100000) fz_fail("%u events", s.n);
        for (uint32_t i = 0; i < s.n; i++) {
            const play_event *e = &s.ev[i];
            if (!isfinite(e->t) || (i && e->t < s.ev[i - 1].t)) fz_fail("event %u: time %g", i, e->t);
            if (e->kind == PLAY_EV_AXIS && !(fabsf(e->value) <= 1.0f)) fz_fail("event %u: axis %g", i, e->value);
            if (!isfinite(e->x) || !isfinite(e->y)) fz_fail("event %u: position %g %g", i, e->x, e->y);
        }
        play_script_free(&s);
    }
    fclose(f);
    return 0;
}
