/* skelanim — private: contact keytimes of the motion analysis that hold on
 * captures (see analysis_keytimes.h; docs/locomotion.md, "Keytimes on
 * captures"). */
#include "analysis_keytimes.h"

#include "core/internal.h"
#include "core/math_inline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The footbase (10)-(11) from the heel and toe points. */
static sk_vec3 footbase_of(const sk_leg_analysis *L, sk_vec3 heel, sk_vec3 toe, float alpha_bal) {
    float dh = (heel.y - L->heel_ground) - (toe.y - L->toe_ground);
    float bal = atanf(dh / L->foot_length * alpha_bal) / SKM_PI + 0.5f;
    return sk_vec3_add(sk_vec3_scale(heel, 1 - bal), sk_vec3_scale(sk_vec3_sub(toe, L->foot_direction), bal));
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median of the n values in v (reorders v). */
static float median(float *v, uint32_t n) {
    qsort(v, n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

/* Offset of the end of the run of flag from w0 (dir +1: forward, >= 0; -1:
 * backward, <= 0) inside [0, n), bridging gaps of up to gap samples. */
static int32_t run(const unsigned char *flag, uint32_t n, uint32_t w0, int dir, uint32_t gap) {
    int32_t last = 0;
    uint32_t miss = 0;
    for (int64_t w = (int64_t)w0 + dir, k = 1; w >= 0 && w < (int64_t)n; w += dir, k++) {
        if (flag[w]) {
            last = (int32_t)k;
            miss = 0;
        } else if (++miss > gap) {
            break;
        }
    }
    return dir * last;
}

/* Still: a point within still_band of the leg (sk_motion_analysis_options;
 * 0: STILL_BAND) above its lowest height, rising or sinking slower than
 * STILL_VERT of its fastest vertical speed over the cycle and moving
 * horizontally at the planted velocity (docs/locomotion.md, "Keytimes on
 * captures"). */
#define STILL_BAND 0.03f
#define STILL_VERT 0.2f

/* Vertical velocity of p at extended index i (central difference +-K),
 * with the vertical root motion removed per sample (rise) added back. */
static float vert_speed(const sk_vec3 *p, size_t i, uint32_t K, double inv2, float rise) {
    return (float)((p[i + K].y - p[i - K].y + 2.0 * K * rise) * inv2);
}

sk_result skl_analysis_keytimes(const sk_leg_analysis *L, uint32_t N, const skl_leg_ext *e, float contact,
                                float speed_tol, float alpha_bal, float still_band, bool still_first,
                                const sk_allocator *alloc, skl_keytimes *out, sk_error *err) {
    memset(out, 0, sizeof *out);
    const uint32_t K = e->K, st = L->stance_sample, half = N / 2;
    const double inv2 = 1.0 / (2.0 * K * e->dt);
    /* Window sample w (0 .. N-1) is cycle sample st - half + w: extended
     * index x = st - half + w + X (X >= half + K keeps x +- K inside). */
    const size_t x0 = (size_t)st + e->X - half;
    size_t scratch = (size_t)N * (3 * sizeof(float) + 6);
    char *mem = sk_alloc(alloc, scratch);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", L->name);
    float *vx = (float *)mem, *vz = vx + N, *low = vz + N;
    unsigned char *fb = (unsigned char *)(low + N), *fh = fb + N, *ft = fh + N, *sh = ft + N, *sb = sh + N, *fs = sb + N;

    /* Heights above each point's lowest in the window (this footstep), in
     * the clip's own space (the vertical root motion added back). */
#define Y(p, w) ((p)[x0 + (w)].y + e->rise * (float)(w))
    float hmin = INFINITY, tmin = INFINITY, bmin = INFINITY, amin = INFINITY;
    for (uint32_t w = 0; w < N; w++) {
        amin = fminf(amin, Y(e->ankle, w));
        hmin = fminf(hmin, Y(e->heel, w));
        tmin = fminf(tmin, Y(e->toe, w));
        bmin = fminf(bmin, Y(e->ball, w));
    }
    float low_max = 0;
    for (uint32_t w = 0; w < N; w++) {
        low[w] = fminf(Y(e->heel, w) - hmin, Y(e->toe, w) - tmin);
        low_max = fmaxf(low_max, low[w]);
    }

    /* Planted velocity (character space). */
    float ux = -e->root_velocity.x, uz = -e->root_velocity.z;
    float rv = sqrtf(ux * ux + uz * uz);
    if (!(rv * (float)(N * e->dt) > 0.05f * L->leg_length)) { /* in place: under 5% of the leg per cycle */
        uint32_t n = 0;
        for (uint32_t w = 0; w < N; w++) {
            if (low[w] > fmaxf(0.1f * low_max, contact)) continue;
            size_t x = x0 + w;
            sk_vec3 a = footbase_of(L, e->heel[x - K], e->toe[x - K], alpha_bal);
            sk_vec3 b = footbase_of(L, e->heel[x + K], e->toe[x + K], alpha_bal);
            vx[n] = (float)((b.x - a.x) * inv2);
            vz[n] = (float)((b.z - a.z) * inv2);
            n++;
        }
        ux = n ? median(vx, n) : 0;
        uz = n ? median(vz, n) : 0;
    }
    float tol = speed_tol * sqrtf(ux * ux + uz * uz) + 0.02f * L->leg_length / (float)(N * e->dt);
    /* Each point's ground: its lowest where it moves over the ground slower than the planted
     * velocity's speed plus tol (a swing is twice as fast), else over the window. A retargeted leg
     * of other proportions can swing its foot under the floor it stands on (CMU 08_11 on Mixamo's
     * characters: the ankle 5 cm, the ball 7 cm lower mid-swing than in stance), and that lowest
     * put the whole stance above its bands. The lowest over the window still found the planted
     * velocity of a clip in place, above. */
    {
        const sk_vec3 *pt[4] = {e->heel, e->toe, e->ankle, e->ball};
        float *gr[4] = {&hmin, &tmin, &amin, &bmin}, slow = sqrtf(ux * ux + uz * uz) + tol;
        for (int k = 0; k < 4; k++) {
            float m = INFINITY;
            for (uint32_t w = 0; w < N; w++)
                if (skl_rel_speed(pt[k], x0 + w, K, inv2, ux, uz) <= slow) m = fminf(m, Y(pt[k], w));
            if (m < INFINITY) *gr[k] = m;
        }
        low_max = 0;
        for (uint32_t w = 0; w < N; w++) {
            low[w] = fmaxf(0.0f, fminf(Y(e->heel, w) - hmin, Y(e->toe, w) - tmin));
            low_max = fmaxf(low_max, low[w]);
        }
    }
    /* The foot is low where its lower point is within 30% of that point's
     * greatest height (a swing never stalls below that). */
    float low_h = fmaxf(0.3f * low_max, contact);
    /* Still (the planted phase): down within a wider band, as a planted
     * capture joint creeps up by a centimetre over a stance (a retargeted
     * one more), but not rising or sinking: a heel coming off, a ball
     * coming down onto the floor are fast, a creep and a tremble slow. */
    float band = fmaxf(contact, (still_band > 0 ? still_band : STILL_BAND) * L->leg_length), vt_ankle = 0, vt_ball = 0;
    for (uint32_t w = 0; w < N; w++) {
        vt_ankle = fmaxf(vt_ankle, fabsf(vert_speed(e->ankle, x0 + w, K, inv2, e->rise)));
        vt_ball = fmaxf(vt_ball, fabsf(vert_speed(e->ball, x0 + w, K, inv2, e->rise)));
    }
    vt_ankle *= STILL_VERT;
    vt_ball *= STILL_VERT;
    for (uint32_t w = 0; w < N; w++) {
        size_t x = x0 + w;
        sk_vec3 fa = footbase_of(L, e->heel[x - K], e->toe[x - K], alpha_bal);
        sk_vec3 fbb = footbase_of(L, e->heel[x + K], e->toe[x + K], alpha_bal);
        float dfx = (float)((fbb.x - fa.x) * inv2) - ux, dfz = (float)((fbb.z - fa.z) * inv2) - uz;
        bool planted_speed = sqrtf(dfx * dfx + dfz * dfz) <= tol;
        fb[w] = low[w] <= low_h && planted_speed;
        fh[w] = Y(e->ankle, w) - amin <= contact && skl_rel_speed(e->ankle, x, K, inv2, ux, uz) <= tol;
        ft[w] = Y(e->ball, w) - bmin <= contact && skl_rel_speed(e->ball, x, K, inv2, ux, uz) <= tol;
        sh[w] = Y(e->ankle, w) - amin <= band && fabsf(vert_speed(e->ankle, x, K, inv2, e->rise)) <= vt_ankle &&
                skl_rel_speed(e->ankle, x, K, inv2, ux, uz) <= tol;
        sb[w] = Y(e->ball, w) - bmin <= band && fabsf(vert_speed(e->ball, x, K, inv2, e->rise)) <= vt_ball &&
                skl_rel_speed(e->ball, x, K, inv2, ux, uz) <= tol;
        fs[w] = sh[w] && sb[w] && planted_speed;
    }
    /* The anchor: the sample nearest the stance sample (the foot's lowest,
     * most central moment) at which ankle and ball are still and the
     * footbase planted; failing that (a clip that is no cycle, whose floor
     * climbs between footsteps of one foot in the window), the nearest with
     * the footbase planted, the heel and toe then bounding the planted
     * phase only where they are down there too. Failing both within a
     * quarter cycle, the footbase counts as planted also where ankle and
     * ball are still (sh, sb) and it moves at the planted velocity, however
     * high its lower point: a retargeted foot can stand flat above the
     * heights its heel reaches at heel-strike and its toe at toe-off while
     * its swing skims the floor, so that low_h is under the flat foot
     * (docs/locomotion.md, "A flat foot above its rolls"). Without any the
     * planted phase is empty at the stance sample. */
    uint32_t gap = N / 50, anchor = half;
    int found = 0;
    for (int pass = still_first ? 1 : 0; pass < 2 && !found; pass++) { /* pass 1: with the still samples */
        if (pass == 1)
            for (uint32_t w = 0; w < N; w++) fb[w] |= fs[w];
        for (int need = 3; need >= 1 && !found; need -= 2)
            for (uint32_t d = 0; d <= N / 4 && !found; d++) {
                uint32_t f = half + d, b = half - d;
                if (fb[f] && (need == 1 || (sh[f] && sb[f]))) anchor = f, found = need;
                else if (fb[b] && (need == 1 || (sh[b] && sb[b]))) anchor = b, found = need;
            }
    }
    if (found) {
        int32_t shift = (int32_t)anchor - (int32_t)half;
        int32_t pe = run(fb, N, anchor, +1, gap), pb = run(fb, N, anchor, -1, gap);
        int32_t ho = fh[anchor] ? run(fh, N, anchor, +1, gap) : pe, hs = fh[anchor] ? run(fh, N, anchor, -1, gap) : pb;
        int32_t to = ft[anchor] ? run(ft, N, anchor, +1, gap) : pe, ts = ft[anchor] ? run(ft, N, anchor, -1, gap) : pb;
        if (found == 3) {
            /* Ankle and ball still bound the planted phase (the footbase
             * between a bare skeleton's guessed heel and toe points wanders
             * as the balance moves while both joints stand), and a point
             * still is down: its off no earlier, its strike no later. */
            int32_t he = run(sh, N, anchor, +1, gap), te = run(sb, N, anchor, +1, gap);
            int32_t hb = run(sh, N, anchor, -1, gap), tb = run(sb, N, anchor, -1, gap);
            pe = he < te ? he : te;
            pb = hb > tb ? hb : tb;
            if (ho < pe) ho = pe;
            if (to < pe) to = pe;
            if (hs > pb) hs = pb;
            if (ts > pb) ts = pb;
        }
        out->planted_end = shift + pe;
        out->planted_begin = shift + pb;
        out->heel_off = shift + ho;
        out->heel_strike = shift + hs;
        out->toe_off = shift + to;
        out->toe_strike = shift + ts;
    }
#undef Y
    sk_free(alloc, mem, scratch);
    return SK_OK;
}

#define WIDEN_MIN 1e-4 /* of the cycle: sk_motion_analysis_widen_planted */
/* Phases this close (of the cycle) meet: the gap the analysis bridges inside a
 * planted phase (a capture's tremble, analysis_keytimes: N / 50 samples). */
#define WIDEN_GAP 0.02

/* x into [-0.5, 0.5) */
static double wrap_half(double x) { return x - floor(x + 0.5); }

/* A keytime's clip time (s) and back: a backward analysis' keytime k is at
 * cycle_start + (1 - k) x cycle_duration (its samples run the clip in
 * reverse); a keytime past 1 is in the next cycle. */
static double key_time(const sk_motion_analysis *m, double k) {
    return m->cycle_start + m->cycle_duration * (m->backward ? 1.0 - k : k);
}
static double time_key(const sk_motion_analysis *m, double t) {
    double k = (t - m->cycle_start) / m->cycle_duration;
    return m->backward ? 1.0 - k : k;
}

sk_result sk_motion_analysis_widen_planted(sk_motion_analysis *a, const sk_motion_analysis *source, float max_share,
                                           uint32_t *widened, sk_error *err) {
    static const char who[] = "sk_motion_analysis_widen_planted";
    if (widened) *widened = 0;
    if (!a || !source) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL argument", who);
    if (a->leg_count != source->leg_count || a->backward != source->backward)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: the analysis has %u leg(s)%s, the source %u%s", who,
                            a->leg_count, a->backward ? " (backward)" : "", source->leg_count,
                            source->backward ? " (backward)" : "");
    if (!(max_share >= 0.0f && max_share <= 1.0f))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: max_share %g (0 to 1)", who, (double)max_share);
    if (max_share == 0.0f) max_share = 0.7f;
    const double D = a->cycle_duration, Ds = source->cycle_duration;
    if (!(isfinite(D) && D > 0 && isfinite(Ds) && Ds > 0 && isfinite(a->cycle_start) && isfinite(source->cycle_start)))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: cycle of %g s at %g s against %g s at %g s", who, D,
                            a->cycle_start, Ds, source->cycle_start);
    for (uint32_t l = 0; l < a->leg_count; l++) {
        const sk_leg_analysis *L = &a->legs[l], *S = &source->legs[l];
        if (!(isfinite(L->stance_time) && isfinite(L->foot_land) && isfinite(L->foot_lift) &&
              isfinite(L->foot_strike) && isfinite(L->foot_off) && isfinite(L->pre_foot_land) &&
              isfinite(L->post_foot_lift) && isfinite(S->foot_land) && isfinite(S->foot_lift)))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: leg %u: keytimes not finite", who, l);
    }
    /* cycles at other seconds of the clip: the gait's phase drifts between them (a capture's step
     * period changes), so no leg is widened */
    const double overlap = fmin(a->cycle_start + D, source->cycle_start + Ds) - fmax(a->cycle_start, source->cycle_start);
    if (overlap < 0.5 * fmin(D, Ds)) return SK_OK;
    uint32_t n = 0;
    for (uint32_t l = 0; l < a->leg_count; l++) {
        sk_leg_analysis *L = &a->legs[l];
        const sk_leg_analysis *S = &source->legs[l];
        /* a's keytimes relative to its stance: land in (-1, 0], lift in [0, 1) */
        const double st = L->stance_time;
        double land = wrap_half(L->foot_land - st), lift = wrap_half(L->foot_lift - st);
        double strike = wrap_half(L->foot_strike - st), off = wrap_half(L->foot_off - st);
        double pre = wrap_half(L->pre_foot_land - st), post = wrap_half(L->post_foot_lift - st);
        if (land > 0) land -= 1;
        if (lift < 0) lift += 1;
        if (strike > land) strike -= 1;
        if (off < lift) off += 1;
        if (pre > land) pre -= 1;
        if (post < lift) post += 1;
        /* the source's phase in seconds, then in a's cycles from a's stance */
        double lk = S->foot_lift < S->foot_land ? S->foot_lift + 1.0 : S->foot_lift;
        double b0 = time_key(a, key_time(source, S->foot_land)) - st, b1 = time_key(a, key_time(source, lk)) - st;
        double k = floor(0.5 * (b0 + b1) + 0.5);
        b0 -= k, b1 -= k;
        if (b0 > lift + WIDEN_GAP || b1 < land - WIDEN_GAP) continue; /* apart */
        /* (an end moved by under WIDEN_MIN of the cycle is float rounding, not a longer phase) */
        double nl = b0 < land - WIDEN_MIN ? b0 : land, nf = b1 > lift + WIDEN_MIN ? b1 : lift;
        if (nf - nl > max_share || (nl == land && nf == lift)) continue;
        L->foot_land = skl_wrap01(st + nl);
        L->foot_lift = skl_wrap01(st + nf);
        strike = fmin(strike, nl), off = fmax(off, nf);
        L->foot_strike = skl_wrap01(st + strike);
        L->foot_off = skl_wrap01(st + off);
        L->pre_foot_land = skl_wrap01(st + fmin(pre, nl));
        L->post_foot_lift = skl_wrap01(st + fmax(post, nf));
        L->stance_fraction = (float)(off - strike);
        n++;
    }
    if (widened) *widened = n;
    return SK_OK;
}
