/* Harness: the state-machine loader run on the mannequin. Input: the JSON
 * description, optionally SK_FUZZ_PARAM_SEP and bytes that drive the
 * machine: up to 64 operations (set a parameter by index or name, fire a
 * trigger, update by a time step — any float, NaN and huge ones included —
 * evaluate). Promises checked: every evaluated pose is finite (the state
 * machine never returns NaN for finite input, issue #14), the root motion
 * is finite, and nothing hangs (a step moves at most
 * SK_PLAYER_MAX_STEP_CYCLES loops). */
#include "fuzz_common.h"

#include <math.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const sk_asset *m = fz_mannequin();
    fz_bytes json, drive;
    fz_split(data, size, SK_FUZZ_PARAM_SEP, &json, &drive);
    sk_error err = {0};
    sk_graph *g = NULL;
    if (sk_graph_load_json((const char *)json.p, json.n, m->skeleton, m->clips, m->clip_count, NULL, &g, &err) !=
        SK_OK) {
        if (err.message[0] == 0) fz_fail("a failed load without a message");
        return 0;
    }
    sk_graph_instance *inst = NULL;
    sk_pose pose;
    if (sk_pose_alloc(m->skeleton, NULL, &pose, &err) != SK_OK) goto out;
    if (sk_graph_instance_create(g, NULL, &inst, &err) != SK_OK) goto out_pose;
    uint32_t pc = sk_graph_param_count(g);
    if (drive.n == 0) { /* no driving bytes: a fixed walk through the parameters */
        for (int k = 0; k < 8; k++) {
            for (uint32_t i = 0; i < pc; i++) sk_graph_set_param(inst, i, (float)((k * 7 + (int)i) % 5));
            sk_graph_update(inst, 0.1 * k);
            if (sk_graph_evaluate(inst, &pose, &err) != SK_OK) fz_fail("sk_graph_evaluate: %s", err.message);
            if (!fz_pose_finite(&pose)) fz_fail("state machine pose not finite after update %d", k);
        }
    }
    for (int op = 0; op < 64 && drive.n > 0; op++) {
        uint8_t code = fz_u8(&drive);
        switch (code % 6) {
        case 0:
            if (pc) sk_graph_set_param(inst, fz_u8(&drive) % pc, fz_float(&drive, -10.0f, 10.0f));
            break;
        case 1:
            if (pc) {
                uint32_t i = fz_u8(&drive) % pc;
                const char *name = sk_graph_param_name(g, i);
                switch (sk_graph_param_type(g, i)) {
                case SK_PARAM_FLOAT: (void)sk_graph_set_float(inst, name, fz_float(&drive, -5.0f, 5.0f), &err); break;
                case SK_PARAM_BOOL: (void)sk_graph_set_bool(inst, name, fz_u8(&drive) & 1, &err); break;
                default: (void)sk_graph_set_trigger(inst, name, &err); break;
                }
                (void)sk_graph_set_float(inst, "no such parameter", 1.0f, &err);
            }
            break;
        case 2: case 3: {
            double dt = (code & 0x80) ? (double)fz_raw_float(&drive) : (double)fz_range(&drive, 0.0f, 2.0f);
            sk_graph_update(inst, dt);
            sk_root_delta rd = sk_graph_root_motion(inst);
            if (!fz_finite((const float *)&rd, sizeof rd / sizeof(float)))
                fz_fail("root motion not finite after a step of %g s", dt);
            break;
        }
        default: {
            if (sk_graph_evaluate(inst, &pose, &err) != SK_OK) fz_fail("sk_graph_evaluate: %s", err.message);
            if (!fz_pose_finite(&pose)) fz_fail("state machine pose not finite after operation %d", op);
            sk_graph_state_info info[16];
            uint32_t n = sk_graph_active_states(inst, info, 16);
            for (uint32_t i = 0; i < n && i < 16; i++)
                if (!isfinite(info[i].weight) || !isfinite(info[i].normalized_time))
                    fz_fail("state %s: weight %g, normalised time %g", info[i].name, info[i].weight,
                            info[i].normalized_time);
            (void)sk_graph_current_state(inst);
            break;
        }
        }
    }
    if (sk_graph_evaluate(inst, &pose, &err) != SK_OK) fz_fail("sk_graph_evaluate: %s", err.message);
    if (!fz_pose_finite(&pose)) fz_fail("state machine pose not finite at the end");
    sk_graph_instance_destroy(inst);
out_pose:
    sk_pose_free(&pose, NULL);
out:
    sk_graph_destroy(g);
    return 0;
}
