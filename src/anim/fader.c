/* Crossfades (sk_fader) and phase-synchronised playback (fader.h). */
#include "core/internal.h"
#include "skelanim/anim/fader.h"

#include <math.h>

/* ---- fader ---- */

float sk_fade_eval(sk_fade_curve curve, float x) {
    if (!(x > 0.0f)) return 0.0f;
    if (x >= 1.0f) return 1.0f;
    return curve == SK_FADE_SMOOTHSTEP ? x * x * (3.0f - 2.0f * x) : x;
}

void sk_fader_init(sk_fader *f, uint32_t id) {
    memset(f, 0, sizeof *f);
    f->count = 1;
    f->id[0] = id;
    f->weight[0] = 1.0f;
    f->start[0] = 1.0f;
    f->target = id;
}

static void fader_remove(sk_fader *f, uint32_t k) {
    for (uint32_t i = k + 1; i < f->count; i++) {
        f->id[i - 1] = f->id[i];
        f->weight[i - 1] = f->weight[i];
        f->start[i - 1] = f->start[i];
    }
    f->count--;
}

static void fader_renormalise(sk_fader *f) {
    float s = 0.0f;
    for (uint32_t i = 0; i < f->count; i++) s += f->weight[i];
    if (s > 0.0f)
        for (uint32_t i = 0; i < f->count; i++) f->weight[i] /= s;
}

void sk_fader_start(sk_fader *f, uint32_t id, double duration, sk_fade_curve curve) {
    if (!(duration > 0.0) || !isfinite(duration)) {
        sk_fader_init(f, id);
        return;
    }
    int32_t k = -1;
    for (uint32_t i = 0; i < f->count; i++)
        if (f->id[i] == id) k = (int32_t)i;
    if (k < 0) {
        if (f->count == SK_FADER_MAX) { /* drop the weakest source, spread its weight */
            uint32_t w = 0;
            for (uint32_t i = 1; i < f->count; i++)
                if (f->weight[i] < f->weight[w]) w = i;
            fader_remove(f, w);
            fader_renormalise(f);
        }
        k = (int32_t)f->count++;
        f->id[k] = id;
        f->weight[k] = 0.0f;
    }
    for (uint32_t i = 0; i < f->count; i++) f->start[i] = f->weight[i];
    f->target = id;
    f->duration = duration;
    f->elapsed = 0.0;
    f->curve = curve;
}

bool sk_fader_in_transition(const sk_fader *f) { return f->count > 1; }

float sk_fader_weight(const sk_fader *f, uint32_t id) {
    for (uint32_t i = 0; i < f->count; i++)
        if (f->id[i] == id) return f->weight[i];
    return 0.0f;
}

void sk_fader_update(sk_fader *f, double dt) {
    if (f->count <= 1) return;
    if (dt > 0.0 && isfinite(dt)) f->elapsed += dt;
    float c = sk_fade_eval(f->curve, f->duration > 0.0 ? (float)(f->elapsed / f->duration) : 1.0f);
    for (uint32_t i = 0; i < f->count; i++)
        f->weight[i] = f->id[i] == f->target ? f->start[i] + (1.0f - f->start[i]) * c : f->start[i] * (1.0f - c);
    if (c >= 1.0f) {
        sk_fader_init(f, f->target);
        return;
    }
    for (uint32_t i = f->count; i-- > 0;)
        if (f->id[i] != f->target && f->weight[i] <= 0.0f) fader_remove(f, i);
}

/* ---- phase synchronisation ---- */

double sk_players_advance_synced(sk_player *const *players, const float *weights, uint32_t n, double dt) {
    double sw = 0.0, sd = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double w = weights ? weights[i] : 1.0;
        if (!(w > 0.0) || !(players[i]->period > 0.0)) continue;
        sw += w;
        sd += w * players[i]->period;
    }
    if (!(sw > 0.0) || !(sd > 0.0) || n == 0) return 0.0;
    const sk_player *lead = players[0];
    if (lead->paused) return 0.0;
    double dphase = dt * (double)lead->speed / (sd / sw);
    for (uint32_t i = 0; i < n; i++) {
        sk_player *p = players[i];
        if (!(p->period > 0.0)) continue;
        sk_player_step(p, dphase * p->period, NULL, 0, NULL, NULL);
    }
    return dphase;
}
