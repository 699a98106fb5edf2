/* Harness: the `locomote --trace` files `skelanim view TRACE.jsonl` replays
 * (cli/trace_read.c), read from the input bytes. Promises checked: a trace
 * is read or refused (never a crash, a leak or an out-of-bounds read,
 * whatever the bytes: no newline, NUL bytes, huge numbers, NaN, joints or
 * feet that change from line to line); a trace read has at least one frame,
 * times that increase, finite positions, parents that are earlier joints
 * or -1, and debugging-view fields (when a frame has them) with cycle
 * times, flights and weights in [0, 1]. */
#include "fuzz_common.h"
#include "trace_read.h"

#include <math.h>
#include <stdio.h>

static bool finite3(sk_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = fmemopen(size ? (void *)data : (void *)"", size ? size : 1, "r");
    if (!f) return 0;
    trace tr;
    if (trace_read(f, "fuzz", &tr)) {
        if (tr.n == 0) fz_fail("a trace read with no frame");
        if (tr.joints > TRACE_MAX_JOINTS) fz_fail("%u joints", tr.joints);
        for (uint32_t k = 0; k < tr.n; k++) {
            if (!isfinite(tr.t[k]) || (k && !(tr.t[k] > tr.t[k - 1]))) fz_fail("frame %u: time %g", k, tr.t[k]);
            if (!finite3(tr.root[k])) fz_fail("frame %u: root", k);
            for (size_t i = 0; i < (size_t)tr.joints * 3; i++)
                if (!isfinite(tr.pos[(size_t)k * tr.joints * 3 + i])) fz_fail("frame %u: joint value %zu", k, i);
            for (size_t i = 0; i < (size_t)tr.legs * 3; i++)
                if (!finite3(tr.feet[(size_t)k * tr.legs * 3 + i])) fz_fail("frame %u: foot point %zu", k, i);
            if (!tr.has_ov[k]) continue;
            const loco_overlay_frame *o = &tr.ov[k];
            if (o->leg_count > LOCO_OVERLAY_MAX_LEGS || o->clip_count > LOCO_OVERLAY_MAX_CLIPS)
                fz_fail("frame %u: %u legs, %u clips", k, o->leg_count, o->clip_count);
            if (!isfinite(o->yaw) || !isfinite(o->phase) || !finite3(o->velocity)) fz_fail("frame %u: overlay", k);
            for (uint32_t l = 0; l < o->leg_count; l++) {
                const loco_overlay_leg *g = &o->legs[l];
                float u[6] = {g->cycle_time, g->flight, g->strike, g->land, g->lift, g->off};
                for (int i = 0; i < 6; i++)
                    if (!(u[i] >= 0 && u[i] <= 1)) fz_fail("frame %u leg %u: key %d = %g", k, l, i, u[i]);
                if (!finite3(g->heel) || !finite3(g->toe) || !finite3(g->from.heel) || !finite3(g->to.toe))
                    fz_fail("frame %u leg %u: points", k, l);
            }
            for (uint32_t i = 0; i < o->clip_count; i++)
                if (!(o->weight[i] >= 0 && o->weight[i] <= 1)) fz_fail("frame %u: weight %g", k, o->weight[i]);
        }
        for (uint32_t j = 0; tr.parents && j < tr.joints; j++)
            if (tr.parents[j] < -1 || tr.parents[j] >= (int32_t)j) fz_fail("parents[%u] = %d", j, tr.parents[j]);
        trace_free(&tr);
    }
    fclose(f);
    return 0;
}
