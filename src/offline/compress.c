/* The compressor (offline/compress.h): per clip, at each sample rate tried,
 * the tracks' clip ranges and dropped components, then per segment a bit
 * rate per animated track chosen against the model-space shell error with
 * the hierarchy in the error (compress_search.c), then the blob and its
 * check at every frame and between frames (compress_output.c). Also the
 * shell error of two clips and the resampler. */
#include "core/clip_internal.h"
#include "core/math_inline.h"
#include "offline/compress_internal.h"
#include "skelanim/core/simd.h"

#include <math.h>
#include <stdlib.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* no contraction: as the search rounds (GCC: off in C11 mode) */
#endif
#include "offline/compress_ctx.h"

typedef struct m34 { double m[12]; } m34; /* columns x, y, z axes (scaled), then the translation */

static void m34_from(const sk_transform *x, m34 *o) {
    double qx = x->r.x, qy = x->r.y, qz = x->r.z, qw = x->r.w;
    double xx = qx * qx, yy = qy * qy, zz = qz * qz, xy = qx * qy, xz = qx * qz, yz = qy * qz, wx = qw * qx,
           wy = qw * qy, wz = qw * qz;
    double sx = x->s.x, sy = x->s.y, sz = x->s.z;
    o->m[0] = (1 - 2 * (yy + zz)) * sx, o->m[1] = 2 * (xy + wz) * sx, o->m[2] = 2 * (xz - wy) * sx;
    o->m[3] = 2 * (xy - wz) * sy, o->m[4] = (1 - 2 * (xx + zz)) * sy, o->m[5] = 2 * (yz + wx) * sy;
    o->m[6] = 2 * (xz + wy) * sz, o->m[7] = 2 * (yz - wx) * sz, o->m[8] = (1 - 2 * (xx + yy)) * sz;
    o->m[9] = x->t.x, o->m[10] = x->t.y, o->m[11] = x->t.z;
}

static void m34_mul(const m34 *a, const m34 *b, m34 *o) {
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 3; r++)
            o->m[c * 3 + r] = a->m[r] * b->m[c * 3] + a->m[3 + r] * b->m[c * 3 + 1] + a->m[6 + r] * b->m[c * 3 + 2] +
                              (c == 3 ? a->m[9 + r] : 0.0);
}

static void m34_model(const sk_transform *local, const int32_t *parents, const m34 *parent_model, m34 *out) {
    (void)parents;
    m34 l;
    m34_from(local, &l);
    if (parent_model) m34_mul(parent_model, &l, out);
    else *out = l;
}

/* Largest distance between the three shell vertices moved by a and by b. */
static double shell_err(const m34 *a, const m34 *b, double shell) {
    double dt[3] = {a->m[9] - b->m[9], a->m[10] - b->m[10], a->m[11] - b->m[11]}, e2 = 0.0;
    for (int c = 0; c < 3; c++) {
        double d0 = dt[0] + shell * (a->m[c * 3] - b->m[c * 3]), d1 = dt[1] + shell * (a->m[c * 3 + 1] - b->m[c * 3 + 1]),
               d2 = dt[2] + shell * (a->m[c * 3 + 2] - b->m[c * 3 + 2]);
        double l2 = d0 * d0 + d1 * d1 + d2 * d2;
        if (l2 > e2) e2 = l2;
    }
    return sqrt(e2);
}

static void fk_all(const sk_skeleton *s, const sk_transform *local, m34 *model) {
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        m34_model(&local[j], s->parents, p >= 0 ? &model[p] : NULL, &model[j]);
    }
}

/* ---- shell error of two clips ------------------------------------------- */

/* The 99th percentile (nearest rank): v is reordered (quickselect). */
double sk_cs_p99(double *v, size_t n) {
    if (!n) return 0.0;
    size_t k = (size_t)ceil(0.99 * (double)n), lo = 0, hi = n - 1;
    k = k ? k - 1 : 0;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j], v[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return v[k];
}

sk_result sk_clip_shell_error(const sk_clip *ref, const sk_clip *test, const sk_skeleton *s, double shell,
                              const double *times, size_t count, const sk_allocator *alloc, double *max_error,
                              double *p99_error, sk_error *err) {
    if (!ref || !test || !s || (!times && count))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_shell_error: NULL argument");
    const sk_allocator *a = sk_allocator_or_default(alloc);
    uint32_t J = s->joint_count;
    size_t ne;
    if (!sk_size_mul(count, J ? J : 1, &ne)) return sk_error_set(err, SK_ERR_LIMIT, "sk_clip_shell_error: too many samples");
    sk_transform *l0 = sk_alloc(a, 2 * (size_t)J * sizeof *l0 + 1);
    m34 *m0 = sk_alloc(a, 2 * (size_t)J * sizeof *m0 + 1);
    double *e = sk_alloc(a, ne * sizeof *e + 1);
    sk_result r = SK_OK;
    if (!l0 || !m0 || !e) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    double mx = 0.0;
    size_t n = 0;
    for (size_t i = 0; r == SK_OK && i < count; i++) {
        sk_pose p0 = sk_pose_view(l0, J, NULL, 0), p1 = sk_pose_view(l0 + J, J, NULL, 0);
        r = sk_clip_sample(ref, s, times[i], SK_LOOP_CLAMP, &p0, err);
        if (r == SK_OK) r = sk_clip_sample(test, s, times[i], SK_LOOP_CLAMP, &p1, err);
        if (r != SK_OK) break;
        fk_all(s, l0, m0);
        fk_all(s, l0 + J, m0 + J);
        for (uint32_t j = 0; j < J; j++) {
            double v = shell_err(&m0[j], &m0[J + j], shell);
            if (!(v <= mx)) mx = v; /* NaN propagates as the maximum */
            e[n++] = v;
        }
    }
    if (r == SK_OK) {
        if (max_error) *max_error = mx;
        if (p99_error) *p99_error = sk_cs_p99(e, n);
    }
    sk_free(a, l0, 2 * (size_t)J * sizeof *l0 + 1);
    sk_free(a, m0, 2 * (size_t)J * sizeof *m0 + 1);
    sk_free(a, e, ne * sizeof *e + 1);
    return r;
}

/* ---- the compressor ------------------------------------------------------ */

static void ctx_free(ctx *c) {
    size_t L2 = 2 * (size_t)c->L, M = (size_t)c->J * 12 * c->EP;
    cx_free(c, c->tr, c->T, sizeof(ctrack));
    cx_free(c, c->anim, c->A, sizeof(uint32_t));
    cx_free(c, c->tord, c->A, sizeof(uint32_t));
    cx_free(c, c->drop, (size_t)c->S * c->A, 1);
    cx_free(c, c->tv, (size_t)c->T * c->N, 4 * sizeof(float));
    cx_free(c, c->pose, c->J, sizeof(sk_transform));
    cx_free(c, c->level, (size_t)c->S * c->A, 1);
    cx_free(c, c->srange, (size_t)c->S * c->A, 6);
    cx_free(c, c->ek, L2, sizeof(uint32_t));
    cx_free(c, c->eu, L2, sizeof(float));
    cx_free(c, c->ll, L2 * c->J, sizeof(sk_transform));
    cx_free(c, c->lm, M, sizeof(double));
    cx_free(c, c->mr, M, sizeof(double));
    cx_free(c, c->mpool, 3 * M, sizeof(double));
    cx_free(c, c->mptr, 3 * (size_t)c->J, sizeof(double *));
    cx_free(c, c->terr2, c->J, sizeof(double));
    cx_free(c, c->tl, (size_t)c->A * 12 * c->EP, sizeof(double));
    cx_free(c, c->tx, (size_t)c->A * L2, sizeof(sk_transform));
    cx_free(c, c->tlv, c->A, 1);
    cx_free(c, c->ev, c->EP, sizeof(double));
    cx_free(c, c->qs, 20 * (size_t)c->J * c->EP, sizeof(double));
    cx_free(c, c->nrm, (size_t)c->A * c->L, 3 * sizeof(double));
    cx_free(c, c->dec, (size_t)c->L + 1, 4 * sizeof(float));
    cx_free(c, c->jerr, c->J, sizeof(double));
    cx_free(c, c->terr, c->J, sizeof(double));
    cx_free(c, c->subtree_end, c->J, sizeof(uint32_t));
    cx_free(c, c->inside, c->J, 1);
    cx_free(c, c->kt, c->kt_cap, sizeof(double));
}

/* ---- entry points ------------------------------------------------------------ */

enum { SK_CS_LADDER = 24 }; /* rates tried at most for a clip without a rate of its own */

/* The clip's own key rate when every track's keys are uniform at one rate,
 * at multiples of the period (the first key may come later than 0); else 0. */
double sk_clip_key_rate(const sk_clip *clip) {
    if (!clip || clip->kind != SK_CLIP_KEYS) return 0.0;
    double period = 0.0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const sk_track *t = &clip->tracks[i];
        if (t->key_count < 2) continue;
        const float *tm = clip->times + t->time_offset;
        if (t->interp != SK_INTERP_LINEAR) return 0.0;
        double t0 = tm[0], p = ((double)tm[t->key_count - 1] - t0) / (t->key_count - 1);
        if (!(p > 0.0) || t0 < 0.0 || fabs(t0 - p * floor(t0 / p + 0.5)) > 1e-3 * p) return 0.0;
        for (uint32_t k = 0; k < t->key_count; k++)
            if (fabs((double)tm[k] - t0 - k * p) > 1e-3 * p) return 0.0;
        if (period == 0.0) period = p;
        else if (fabs(p - period) > 1e-4 * period) return 0.0;
    }
    return period > 0.0 ? 1.0 / period : 0.0;
}

/* The input's frames (the largest key count of its tracks, at least 1) and
 * its rate: its own key rate, or (frames - 1) / duration when its keys are
 * not uniform (0 for a single frame). */
static void input_size(const sk_clip *clip, double own, uint32_t *frames, double *rate) {
    uint32_t n = 1;
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].key_count > n) n = clip->tracks[i].key_count;
    double dur = sk_clip_duration(clip);
    *frames = n;
    *rate = own > 0.0 ? own : n > 1 && dur > 0.0 ? (double)(n - 1) / dur : 0.0;
}

double sk_clip_work_limit(const sk_clip *clip) {
    if (!clip) return SK_WORK_MIN;
    double values = 0.0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        sk_track_info ti;
        sk_clip_track_info(clip, i, &ti);
        values += (double)ti.key_count * ti.width * (ti.interpolation == SK_INTERP_CUBICSPLINE ? 3.0 : 1.0);
    }
    return fmax(SK_WORK_MIN, SK_WORK_PER_VALUE * values);
}

/* SK_OK when frames x max(tracks, joints) stays within the work limit. */
static sk_result work_check(const char *who, const sk_clip *clip, const sk_skeleton *s, double frames, double rate,
                            double max_work, sk_error *err) {
    if (!(max_work >= 0.0)) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: max_work must be >= 0", who);
    double limit = max_work > 0.0 ? max_work : sk_clip_work_limit(clip);
    double width = fmax((double)clip->track_count, (double)s->joint_count);
    double work = frames * (width > 0.0 ? width : 1.0);
    if (work > limit)
        return sk_error_set(err, SK_ERR_LIMIT,
                            "%s: clip '%s': %.0f frames at %g fps x %.0f tracks = %.4g frame-tracks, past the work limit "
                            "of %.4g (%s; raise it with max_work, skelanim compress --max-work)",
                            who, sk_clip_name(clip), frames, rate, width, work, limit,
                            max_work > 0.0 ? "as given" : "64 per value the clip stores, at least 2^20");
    return SK_OK;
}

/* The context of one attempt at sample rate rate: the frames and segments
 * (SK_ERR_LIMIT past SK_CC_MAX_FRAMES), the error threshold and the shell in
 * the clip's units (*upm: units per metre), the kernels to use. Nothing
 * allocated yet. */
static sk_result ctx_init(ctx *c, const sk_clip *clip, const sk_skeleton *s, const sk_compress_options *o, double rate,
                          bool simd, const sk_allocator *alloc, double *upm, sk_error *err) {
    memset(c, 0, sizeof *c);
    c->al = *sk_allocator_or_default(alloc);
    c->s = s;
    c->J = s->joint_count;
    c->L = o->segment_len ? o->segment_len : 16u;
    c->dur = (float)sk_clip_duration(clip);
    double nf = floor((double)c->dur * rate + 0.5);
    if (nf + 1.0 > (double)SK_CC_MAX_FRAMES)
        return sk_error_set(err, SK_ERR_LIMIT, "compress: clip '%s': more than %u frames", sk_clip_name(clip), SK_CC_MAX_FRAMES);
    sk_result wr = work_check("compress", clip, s, nf + 1.0, rate, o->max_work, err);
    if (wr != SK_OK) return wr;
    c->N = (uint32_t)nf + 1;
    c->rate = c->N > 1 ? (float)((double)(c->N - 1) / (double)c->dur) : (float)rate;
    if (!(c->rate > 0.0f) || !sk_isfinite_f(c->rate)) c->rate = 1.0f;
    c->S = (c->N - 1) / c->L + 1;
    c->T = clip->track_count;
    *upm = 1.0 / (o->metres_per_unit > 0.0 ? o->metres_per_unit : 1.0);
    c->thr = (o->error_cm > 0.0 ? o->error_cm : 0.01) * 0.01 * *upm;
    c->shell = (o->shell_cm > 0.0 ? o->shell_cm : 3.0) * 0.01 * *upm;
    c->clip = clip;
#ifdef SK_CS_HAVE_WIDE
    c->wide = simd && sk_simd_best() >= SK_SIMD_AVX2;
    c->fma = simd && sk_simd_best() >= SK_SIMD_AVX2; /* AVX2 levels have FMA (simd.h) */
#else
    (void)simd;
#endif
    return SK_OK;
}

/* The buffers that do not depend on the animated tracks: all of them tried,
 * false when one could not be allocated (ctx_free frees the others). */
static bool ctx_alloc_frames(ctx *c) {
    bool ok = true;
    size_t L2 = 2 * (size_t)c->L;
    c->tr = cx_alloc(c, c->T, sizeof(ctrack), &ok);
    c->tv = cx_alloc_raw(c, (size_t)c->T * c->N, 4 * sizeof(float), &ok);
    c->pose = cx_alloc(c, c->J, sizeof(sk_transform), &ok);
    c->ek = cx_alloc(c, L2, sizeof(uint32_t), &ok);
    c->eu = cx_alloc(c, L2, sizeof(float), &ok);
    c->ll = cx_alloc(c, L2 * c->J, sizeof(sk_transform), &ok);
    c->EP = (uint32_t)((L2 + 3u) & ~(size_t)3u);
    size_t M = (size_t)c->J * 12 * c->EP;
    c->lm = cx_alloc(c, M, sizeof(double), &ok);
    c->mr = cx_alloc(c, M, sizeof(double), &ok);
    c->mpool = cx_alloc_raw(c, 3 * M, sizeof(double), &ok);
    c->mptr = cx_alloc(c, 3 * (size_t)c->J, sizeof(double *), &ok);
    if (ok) {
        c->ml = c->mptr, c->ms = c->mptr + c->J, c->ms2 = c->mptr + 2 * (size_t)c->J;
        for (size_t i = 0; i < 3 * (size_t)c->J; i++) c->mptr[i] = c->mpool + i * 12 * c->EP;
    }
    c->terr2 = cx_alloc(c, c->J, sizeof(double), &ok);
    c->ev = cx_alloc(c, c->EP, sizeof(double), &ok);
    c->qs = cx_alloc_raw(c, 20 * (size_t)c->J * c->EP, sizeof(double), &ok);
    c->dec = cx_alloc(c, (size_t)c->L + 1, 4 * sizeof(float), &ok);
    c->jerr = cx_alloc(c, c->J, sizeof(double), &ok);
    c->terr = cx_alloc(c, c->J, sizeof(double), &ok);
    c->subtree_end = cx_alloc(c, c->J, sizeof(uint32_t), &ok);
    c->inside = cx_alloc(c, c->J, 1, &ok);
    return ok;
}

/* The skeleton's subtrees and whether it is in depth-first order; the
 * tracks' joints and paths. */
static void ctx_hierarchy(ctx *c, const sk_clip *clip) {
    const sk_skeleton *s = c->s;
    for (uint32_t j = 0; j < c->J; j++) c->subtree_end[j] = sk_skeleton_subtree_end(s, j);
    /* depth-first order: each joint inside its parent's run (then every subtree is one run) */
    c->dfs = true;
    for (uint32_t j = 0; j < c->J; j++)
        if (s->parents[j] >= 0 && j >= c->subtree_end[s->parents[j]]) c->dfs = false;
    for (uint32_t i = 0; i < c->T; i++) c->tr[i].joint = clip->tracks[i].joint, c->tr[i].path = clip->tracks[i].path;
}

/* Whether source track st is a STEP track whose keys are not all the same
 * (exactly: a step track is stored as it is). */
static bool step_varies(const sk_clip *clip, const sk_track *st) {
    if (st->interp != SK_INTERP_STEP || st->key_count < 2 || st->path > SK_PATH_SCALE || !clip->values) return false;
    const float *v = clip->values + st->value_offset;
    for (size_t k = st->width; k < (size_t)st->key_count * st->width; k++)
        if (v[k] != v[k % st->width]) return true;
    return false;
}

/* The input's key times inside (0, dur) that are not frame times (sorted,
 * each once) into c->kt: the output check samples them too, where the
 * input's own interpolation turns (a LINEAR key between frames) or jumps
 * (a STEP key). false when out of memory. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static bool key_times(ctx *c) {
    const sk_clip *clip = c->clip;
    size_t n = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) n += clip->tracks[i].key_count;
    if (!n || !clip->times) return true;
    bool ok = true;
    double *kt = cx_alloc_raw(c, n, sizeof(double), &ok);
    if (!ok) return false;
    size_t m = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const sk_track *st = &clip->tracks[i];
        for (uint32_t k = 0; k < st->key_count; k++) {
            double t = clip->times[st->time_offset + k], f = t * (double)c->rate;
            if (!(t > 0.0 && t < (double)c->dur)) continue;
            if (fabs(t - floor(f + 0.5) / (double)c->rate) <= 1e-7) continue; /* at a frame */
            kt[m++] = t;
        }
    }
    qsort(kt, m, sizeof *kt, cmp_double);
    size_t u = 0;
    for (size_t k = 0; k < m; k++)
        if (!u || kt[k] != kt[u - 1]) kt[u++] = kt[k];
    if (u > SK_CC_MAX_FRAMES) u = SK_CC_MAX_FRAMES; /* the check's samples stay countable */
    c->kt = kt, c->kt_cap = n, c->nkt = (uint32_t)u;
    return true;
}

/* Each track constant (its value in cval, a rotation normalised), kept as
 * its STEP keys, or animated, from its raw values at the frames; c->A, c->K. */
static void classify_tracks(ctx *c) {
    /* constant or animated */
    for (uint32_t i = 0; i < c->T; i++) {
        ctrack *t = &c->tr[i];
        float v0[4], lo[4], hi[4];
        memcpy(v0, &c->tv[(size_t)i * c->N * 4], sizeof v0);
        memcpy(lo, v0, sizeof lo), memcpy(hi, v0, sizeof hi);
        for (uint32_t k = 1; k < c->N; k++) {
            const float *v = &c->tv[((size_t)i * c->N + k) * 4];
            for (int q = 0; q < 4; q++) lo[q] = v[q] < lo[q] ? v[q] : lo[q], hi[q] = v[q] > hi[q] ? v[q] : hi[q];
        }
        double tol = t->path == SK_PATH_TRANSLATION ? 0.01 * c->thr : 1e-6;
        bool cst = true;
        for (int q = 0; q < 4; q++) cst = cst && (double)hi[q] - (double)lo[q] <= tol;
        memcpy(t->cval, v0, sizeof v0);
        if (t->path == SK_PATH_ROTATION) {
            sk_quat qn = sk_quat_normalize(sk_quat_make(v0[0], v0[1], v0[2], v0[3]));
            t->cval[0] = qn.x, t->cval[1] = qn.y, t->cval[2] = qn.z, t->cval[3] = qn.w;
        }
        /* A STEP track whose keys differ is kept as its keys: uniform frames and a
         * lerp between them cannot hold a jump, and the keys are few. Its constant
         * (cval: the value at 0, its first key) is what the decoders write first. */
        t->step = step_varies(c->clip, &c->clip->tracks[i]);
        t->anim = !cst && !t->step;
        c->A += t->anim;
        c->K += t->step;
    }
}

/* The buffers per animated track: all of them tried, false when one could
 * not be allocated (ctx_free frees the others). */
static bool ctx_alloc_animated(ctx *c) {
    bool ok = true;
    c->anim = cx_alloc(c, c->A, sizeof(uint32_t), &ok);
    c->tord = cx_alloc(c, c->A, sizeof(uint32_t), &ok);
    c->drop = cx_alloc(c, (size_t)c->S * c->A, 1, &ok);
    c->level = cx_alloc(c, (size_t)c->S * c->A, 1, &ok);
    c->srange = cx_alloc(c, (size_t)c->S * c->A, 6, &ok);
    c->nrm = cx_alloc(c, (size_t)c->A * c->L, 3 * sizeof(double), &ok);
    c->tl = cx_alloc(c, (size_t)c->A * 12 * c->EP, sizeof(double), &ok);
    c->tx = cx_alloc(c, (size_t)c->A * 2 * c->L, sizeof(sk_transform), &ok);
    c->tlv = cx_alloc(c, c->A, 1, &ok);
    return ok;
}

/* The animated tracks in the blob's data order (version 4): the rotations,
 * then the translations and scales, each in track order (anim); per animated
 * track in track order, its place in that order (tord, the search's order). */
static void order_tracks(ctx *c) {
    for (uint32_t pass = 0, a = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < c->T; i++)
            if (c->tr[i].anim && (c->tr[i].path == SK_PATH_ROTATION) == (pass == 0)) c->anim[a++] = i;
    uint32_t nrot = 0;
    for (uint32_t i = 0; i < c->T; i++) nrot += c->tr[i].anim && c->tr[i].path == SK_PATH_ROTATION;
    for (uint32_t i = 0, k = 0, ar = 0, av = nrot; i < c->T; i++)
        if (c->tr[i].anim) c->tord[k++] = c->tr[i].path == SK_PATH_ROTATION ? ar++ : av++;
}

/* Per animated track: the component dropped in each segment (the rotation
 * component farthest from zero, 3 for a translation or scale) and the clip
 * range of the stored (signed) components (a rotation's in steps of
 * 2/65535). */
static void clip_ranges(ctx *c) {
    for (uint32_t a = 0; a < c->A; a++) {
        uint32_t i = c->anim[a];
        /* per segment: the rotation component farthest from zero is dropped */
        ctrack *t = &c->tr[i];
        for (uint32_t seg = 0; seg < c->S; seg++) {
            uint32_t d = 3;
            if (t->path == SK_PATH_ROTATION) {
                float best = -1.0f;
                for (uint32_t comp = 0; comp < 4; comp++) {
                    float m = 2.0f;
                    for (uint32_t k = seg * c->L; k < c->N && k < (seg + 1) * c->L; k++)
                        m = fminf(m, fabsf(aval(c, a, k)[comp]));
                    if (m > best + 1e-3f) best = m, d = comp; /* w unless another is clearly farther */
                }
                if (fabsf(aval(c, a, seg * c->L)[3]) >= best - 1e-3f) d = 3;
            }
            c->drop[(size_t)seg * c->A + a] = (uint8_t)d;
        }
        /* clip range of the stored (signed) components */
        float lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
        for (uint32_t k = 0; k < c->N; k++) {
            const float *v = aval(c, a, k);
            uint32_t d = c->drop[(size_t)(k / c->L) * c->A + a];
            float sg = t->path == SK_PATH_ROTATION && v[d] < 0.0f ? -1.0f : 1.0f;
            for (int q = 0; q < 4; q++) lo[q] = fminf(lo[q], sg * v[q]), hi[q] = fmaxf(hi[q], sg * v[q]);
        }
        for (int q = 0; q < 4; q++) {
            if (t->path == SK_PATH_ROTATION) {
                /* in steps of 2/65535 over [-1, 1]: the minimum rounded down, the maximum up */
                double l = floor(((double)lo[q] + 1.0) * 32767.5), h = ceil(((double)hi[q] + 1.0) * 32767.5);
                uint32_t L = l < 0.0 ? 0u : l > 65535.0 ? 65535u : (uint32_t)l;
                uint32_t H = h < (double)L ? L : h > 65535.0 ? 65535u : (uint32_t)h;
                sk_cc_rot_range(L, H, &t->cmin[q], &t->cext[q]);
                while (L > 0 && t->cmin[q] > lo[q]) sk_cc_rot_range(--L, H, &t->cmin[q], &t->cext[q]);
                while (H < 65535 && t->cmin[q] + t->cext[q] < hi[q]) sk_cc_rot_range(L, ++H, &t->cmin[q], &t->cext[q]);
                t->rlo[q] = (uint16_t)L, t->rhi[q] = (uint16_t)H;
                continue;
            }
            t->cmin[q] = lo[q], t->cext[q] = hi[q] - lo[q];
            /* the extent must reach the maximum in float: min + ext >= max */
            while (t->cmin[q] + t->cext[q] < hi[q]) t->cext[q] = nextafterf(t->cext[q], INFINITY);
        }
    }
}

/* The statistics of the result out (its errors: sk_cs_output). */
static void result_stats(const ctx *c, const sk_clip *out, sk_compress_stats *st) {
    uint32_t tracked = 0;
    for (uint32_t j = 0; j < c->J; j++) {
        bool has = false;
        for (uint32_t i = 0; i < c->T; i++) has = has || c->tr[i].joint == j;
        tracked += has;
    }
    st->raw_bytes = 40.0 * tracked * st->input_frames; /* the input's own keys, whatever rate is stored */
    st->segment_len = c->L;
    st->frames = c->N;
    st->sample_rate = c->rate;
    st->animated_tracks = c->A;
    st->constant_tracks = c->T - c->A - c->K;
    st->step_tracks = c->K;
    sk_clip_compressed_data(out, NULL, &st->compressed_bytes);
}

/* One attempt at one sample rate: SK_OK with *out, or SK_ERR_UNSUPPORTED when the error cannot be met. */
static sk_result compress_at(const sk_clip *clip, const sk_skeleton *s, const sk_compress_options *o, double rate,
                             bool simd, const sk_allocator *alloc, sk_clip **out, sk_compress_stats *st, sk_error *err) {
    ctx cx, *c = &cx;
    double upm = 0.0; /* set by ctx_init */
    sk_result r = ctx_init(c, clip, s, o, rate, simd, alloc, &upm, err);
    if (r != SK_OK) return r;
    if (!ctx_alloc_frames(c)) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }
    ctx_hierarchy(c, clip);
    r = sk_cs_sample_raw(c, err);
    if (r != SK_OK) goto done;
    classify_tracks(c);
    if (!key_times(c)) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }
    if (!ctx_alloc_animated(c)) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }
    order_tracks(c);
    clip_ranges(c);
    for (uint32_t seg = 0; seg < c->S; seg++)
        if ((r = sk_cs_search_segment(c, seg, err)) != SK_OK) {
            if (r != SK_ERR_UNSUPPORTED) goto done;
            r = sk_error_set(err, SK_ERR_UNSUPPORTED, "compress: clip '%s': the error cannot be met at %g frames/s",
                             sk_clip_name(clip), (double)c->rate);
            goto done;
        }
    r = sk_cs_output(c, upm, out, st, err);
    if (r == SK_OK) result_stats(c, *out, st);
done:
    ctx_free(c);
    return r;
}

/* Greatest common divisor of a and b (> 0) within tol: Euclid's algorithm
 * on the reals, a remainder within tol of 0 or of the divisor taken as 0. */
static double fgcd(double a, double b, double tol) {
    if (a < b) { double t = a; a = b; b = t; }
    for (int i = 0; i < 64 && b > tol; i++) {
        double r = fmod(a, b);
        if (r > b - tol) r = 0.0;
        a = b, b = r;
    }
    return a;
}

/* The rate of the grid every key time of the clip's tracks but its STEP
 * tracks (kept as keys) and its duration lie on, to 1e-4 of a period: 1 /
 * their greatest common divisor (InterpolationTest: keys at multiples of
 * 1/24 s, irregular, give 24). 0 when there is none up to 1,000 frames/s. */
static double key_grid_rate(const sk_clip *clip) {
    const double tol = 1e-5;
    double p = 0.0, dur = sk_clip_duration(clip);
    if (!(dur > tol) || !clip->times) return 0.0;
    for (int pass = 0; pass < 2; pass++) /* the divisor, then every time checked against it */
        for (uint32_t i = 0; i <= clip->track_count; i++) {
            const sk_track *st = i < clip->track_count ? &clip->tracks[i] : NULL;
            if (st && st->interp == SK_INTERP_STEP) continue;
            uint32_t n = st ? st->key_count : 1;
            for (uint32_t k = 0; k < n; k++) {
                double t = st ? (double)clip->times[st->time_offset + k] : dur;
                if (!(t >= 0.0) || t > 1e6) return 0.0;
                if (pass == 0 && t > tol) {
                    p = p > 0.0 ? fgcd(p, t, tol) : t;
                    if (p < 1e-3) return 0.0;
                } else if (pass == 1 && fabs(t / p - floor(t / p + 0.5)) > 1e-4 * fmax(1.0, t / p) + 1e-3)
                    return 0.0;
            }
        }
    return p > 0.0 ? 1.0 / p : 0.0;
}

/* The rates tried for a clip without a rate of its own, into rates
 * (SK_CS_LADDER at most); returns their count. Where its keys lie on a grid
 * (key_grid_rate R), R times 1, 2, 3, 4, 6, 8, 12, ... up to 1,000 frames/s,
 * so that the frames fall on the keys and the input's own interpolation
 * between them is what the frames are checked against; else 30, 60, 120,
 * 240, 480, 960 frames/s. A CUBICSPLINE curve needs more frames than its
 * keys (its chords between frames must stay within the error), which the
 * ladder finds. */
static int rate_ladder(const sk_clip *clip, double *rates) {
    double R = key_grid_rate(clip);
    int n = 0;
    if (R > 0.0 && R <= 1000.0) {
        for (uint32_t m = 1; n < SK_CS_LADDER && R * m <= 1000.0 + 1e-9; m = m < 4 ? m + 1 : (m & (m - 1)) ? m / 3 * 4 : m / 2 * 3)
            rates[n++] = R * m;
        return n;
    }
    for (double r = 30.0; r <= 960.0 && n < SK_CS_LADDER; r *= 2.0) rates[n++] = r;
    return n;
}

sk_result sk_clip_compress(const sk_clip *clip, const sk_skeleton *s, const sk_compress_options *opt,
                           const sk_allocator *alloc, sk_clip **out, sk_compress_stats *stats, sk_error *err) {
    return sk_clip_compress_simd(clip, s, opt, alloc, true, out, stats, err);
}

sk_result sk_clip_compress_simd(const sk_clip *clip, const sk_skeleton *s, const sk_compress_options *opt,
                                const sk_allocator *alloc, bool simd, sk_clip **out, sk_compress_stats *stats, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_compress: out is NULL");
    *out = NULL;
    if (!clip || !s) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_compress: NULL argument");
    if (clip->kind != SK_CLIP_KEYS) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "compress: clip '%s' is compressed already", sk_clip_name(clip));
    if (clip->weight_tracks)
        return sk_error_set(err, SK_ERR_UNSUPPORTED, "compress: clip '%s' has morph-weight tracks", sk_clip_name(clip));
    if (clip->joint_span > s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "compress: clip '%s' targets joints the skeleton does not have",
                            sk_clip_name(clip));
    sk_compress_options o = {0};
    if (opt) o = *opt;
    if (!(o.error_cm >= 0.0 && o.error_cm <= 1e6) || !(o.shell_cm >= 0.0 && o.shell_cm <= 1e6) ||
        !(o.metres_per_unit >= 0.0 && o.metres_per_unit <= 1e9) || !(o.sample_rate >= 0.0 && o.sample_rate <= 1e4) ||
        o.segment_len > 1024 || !(o.max_work >= 0.0))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_compress: option out of range");
    sk_compress_stats st;
    memset(&st, 0, sizeof st);
    double own = sk_clip_key_rate(clip);
    st.input_uniform = own > 0.0;
    input_size(clip, own, &st.input_frames, &st.input_rate);
    /* The rate: the one asked for, else the clip's own key rate and never
     * more (a rate above it would store frames the input does not have and
     * hide the motion's difficulty in a larger raw size); only a clip
     * without a rate of its own climbs the ladder. At a fixed rate, where
     * the error cannot be met even at the highest bit rates, shorter
     * segments follow (their ranges and dropped components fit fast motion:
     * see docs/compression.md), unless the caller fixed the length. */
    double rates[SK_CS_LADDER] = {o.sample_rate};
    int nr = 1;
    bool fixed = true;
    if (o.sample_rate == 0.0) {
        if (own > 0.0 && own <= 1e4) rates[0] = own;
        else nr = rate_ladder(clip, rates), fixed = false;
    }
    const uint32_t lens[5] = {o.segment_len ? o.segment_len : 16u, 8u, 4u, 2u, 1u};
    const int nl = fixed && !o.segment_len ? 5 : 1;
    sk_result r = SK_ERR_UNSUPPORTED;
    for (int i = 0; i < nr && r == SK_ERR_UNSUPPORTED; i++)
        for (int l = 0; l < nl; l++) {
            sk_compress_options ol = o;
            ol.segment_len = lens[l];
            r = compress_at(clip, s, &ol, rates[i], simd, alloc, out, &st, err);
            if (r != SK_ERR_UNSUPPORTED) break;
        }
    if (r == SK_ERR_UNSUPPORTED && fixed)
        r = sk_error_set(err, SK_ERR_UNSUPPORTED,
                         "compress: clip '%s': the error cannot be met at %s %g frames/s (the highest bit rates, "
                         "segments of %u%s frames); it is not stored at a higher rate than its input's",
                         sk_clip_name(clip), o.sample_rate > 0.0 ? "the requested" : "its own", rates[0], lens[0],
                         nl > 1 ? " down to 1" : "");
    if (r == SK_OK && stats) *stats = st;
    return r;
}

sk_result sk_clip_resample(const sk_clip *clip, const sk_skeleton *s, double fps, const sk_allocator *alloc,
                           sk_clip **out, sk_error *err) {
    return sk_clip_resample_limited(clip, s, fps, 0.0, alloc, out, err);
}

sk_result sk_clip_resample_limited(const sk_clip *clip, const sk_skeleton *s, double fps, double max_work,
                                   const sk_allocator *alloc, sk_clip **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_resample: out is NULL");
    *out = NULL;
    if (!clip || !s || !(fps > 0.0 && fps <= 1e4))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_resample: bad argument");
    if (clip->weight_tracks)
        return sk_error_set(err, SK_ERR_UNSUPPORTED, "resample: clip '%s' has morph-weight tracks", sk_clip_name(clip));
    if (clip->joint_span > s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "resample: clip '%s' targets joints the skeleton does not have",
                            sk_clip_name(clip));
    const sk_allocator *a = sk_allocator_or_default(alloc);
    /* A clip keyed uniformly at a multiple of fps (120 -> 24 fps) keeps
     * every k-th key, at its own time: BVH frame times are rounded (0.008333
     * s for 1/120), so k / fps drifts off the keys and, over 2,100 frames,
     * past the last one that ACL's "every 5th frame" keeps. Other clips are
     * sampled at k / fps within the duration. */
    uint32_t step = 0, nsrc = 0, T = clip->track_count;
    const float *src_times = NULL;
    if (T > 0 && clip->kind == SK_CLIP_KEYS) {
        sk_track_info t0;
        sk_clip_track_info(clip, 0, &t0);
        bool uniform = t0.key_count >= 2 && t0.time_min == 0.0 && t0.interpolation == SK_INTERP_LINEAR;
        for (uint32_t i = 1; uniform && i < T; i++) {
            sk_track_info ti;
            sk_clip_track_info(clip, i, &ti);
            uniform = ti.key_count == t0.key_count && ti.time_max == t0.time_max && ti.time_min == 0.0 &&
                      ti.interpolation == SK_INTERP_LINEAR;
        }
        if (uniform) {
            src_times = clip->times + clip->tracks[0].time_offset;
            nsrc = t0.key_count;
            double dt = t0.time_max / (nsrc - 1);
            for (uint32_t k = 1; uniform && k < nsrc; k++)
                uniform = fabs((double)src_times[k] - k * dt) <= 1e-3 * dt;
            double ratio = 1.0 / (dt * fps), kk = floor(ratio + 0.5);
            if (uniform && kk >= 1.0 && kk <= 1e6 && fabs(ratio - kk) <= 1e-3 * kk) step = (uint32_t)kk;
        }
    }
    double nf = step ? floor((double)(nsrc - 1) / step) : floor(sk_clip_duration(clip) * fps + 1e-6);
    if (nf > 1e7) return sk_error_set(err, SK_ERR_LIMIT, "resample: more than 10^7 frames");
    sk_result wr = work_check("resample", clip, s, nf + 1.0, fps, max_work, err);
    if (wr != SK_OK) return wr;
    uint32_t N = (uint32_t)nf + 1, J = s->joint_count;
    double dur = step ? (double)src_times[(size_t)(N - 1) * step] : nf / fps;
    sk_transform *poses = sk_alloc(a, (size_t)N * (J ? J : 1) * sizeof(sk_transform));
    float *times = sk_alloc(a, (size_t)N * sizeof(float)), *vals = sk_alloc(a, (size_t)N * 4 * sizeof(float));
    sk_clip_builder *b = NULL;
    sk_result r = SK_OK;
    if (!poses || !times || !vals) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    if (r == SK_OK) r = sk_clip_builder_create(sk_clip_name(clip), a, &b, err);
    for (uint32_t k = 0; r == SK_OK && k < N; k++) {
        double t = step ? (double)src_times[(size_t)k * step] : (double)k / fps;
        times[k] = (float)t;
        sk_pose p = sk_pose_view(&poses[(size_t)k * J], J, NULL, 0);
        memcpy(p.local, s->rest, J * sizeof(sk_transform));
        r = sk_clip_sample_tracks(clip, s, t, SK_LOOP_CLAMP, NULL, 0, &p, err);
    }
    for (uint32_t i = 0; r == SK_OK && i < T; i++) {
        sk_track_info ti;
        sk_clip_track_info(clip, i, &ti);
        uint32_t w = ti.path == SK_PATH_ROTATION ? 4 : 3;
        for (uint32_t k = 0; k < N; k++) {
            const sk_transform *x = &poses[(size_t)k * J + ti.joint];
            float *v = &vals[(size_t)k * w];
            if (ti.path == SK_PATH_ROTATION) v[0] = x->r.x, v[1] = x->r.y, v[2] = x->r.z, v[3] = x->r.w;
            else if (ti.path == SK_PATH_TRANSLATION) v[0] = x->t.x, v[1] = x->t.y, v[2] = x->t.z;
            else v[0] = x->s.x, v[1] = x->s.y, v[2] = x->s.z;
        }
        sk_track_desc d = {ti.joint, ti.path, SK_INTERP_LINEAR, N, times, vals, w};
        r = sk_clip_builder_add_track(b, &d, err);
    }
    if (r == SK_OK) {
        sk_clip_builder_set_duration(b, dur);
        r = sk_clip_builder_finish(b, out, err);
        b = NULL;
    }
    sk_clip_builder_destroy(b);
    sk_free(a, poses, (size_t)N * (J ? J : 1) * sizeof(sk_transform));
    sk_free(a, times, (size_t)N * sizeof(float));
    sk_free(a, vals, (size_t)N * 4 * sizeof(float));
    return r;
}
