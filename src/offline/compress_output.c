/* The compressor's output: the blob (layout in clip_internal.h) built from
 * the search's bit rates, loaded, and checked at every frame and at the
 * quarters between frames against the raw clip, bit rates raised where it
 * fails (compress.c calls it after the search). */
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

static void w32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24); }
static void wf32(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    w32(p, u);
}

static void w16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

/* The blob (layout in clip_internal.h). */
static uint8_t *build_blob(ctx *c, size_t *size_out) {
    uint32_t A = c->A, T = c->T, S = c->S;
    size_t size = SK_CC_HEADER + 4u * (size_t)T + 16u * (size_t)(T - A);
    for (uint32_t a = 0; a < A; a++) size += c->tr[c->anim[a]].path == SK_PATH_ROTATION ? 16u : 24u;
    size_t ok = size; /* the step keys (version 5): count, times, values */
    for (uint32_t i = 0; i < T; i++)
        if (c->tr[i].step) {
            const sk_track *st = &c->clip->tracks[i];
            size += 4u + 4u * (size_t)st->key_count * (1u + st->width);
        }
    size_t os = size;
    for (uint32_t s = 0; s < S; s++) {
        uint64_t F = 0, nf = s + 1 < S ? c->L : c->N - s * c->L;
        for (uint32_t a = 0; a < A; a++) F += 3u * SK_CC_BITS[c->level[(size_t)s * A + a]];
        size += 7u * (size_t)A + (size_t)((nf * F + 7) / 8);
    }
    size += 8;
    if (size > UINT32_MAX) return NULL;
    uint8_t *b = sk_alloc(&c->al, size); /* zero-filled: the padding and the 8 bytes at the end */
    if (!b) return NULL;
    /* version 4 without step tracks: the same bytes as before version 5 */
    w32(b, SK_CC_MAGIC), w32(b + 4, c->K ? SK_CC_VERSION : 4u), w32(b + 8, (uint32_t)size), w32(b + 12, c->N);
    wf32(b + 16, c->rate), wf32(b + 20, c->dur), w32(b + 24, T), w32(b + 28, A), w32(b + 32, c->L), w32(b + 36, c->K);
    uint8_t *p = b + SK_CC_HEADER, *q = p + 4u * (size_t)T, *r = q + 16u * (size_t)(T - A);
    for (uint32_t i = 0; i < T; i++) {
        const ctrack *t = &c->tr[i];
        w32(p + 4u * i, t->joint | (uint32_t)t->path << SK_CC_JOINT_BITS | (uint32_t)t->anim << (SK_CC_JOINT_BITS + 2) |
                            (uint32_t)t->step << SK_CC_STEP_BIT);
        if (!t->anim) {
            for (int k = 0; k < 4; k++) wf32(q + 4 * k, t->cval[k]);
            q += 16;
        }
    }
    for (uint32_t a = 0; a < A; a++) { /* the clip ranges in data order */
        const ctrack *t = &c->tr[c->anim[a]];
        if (t->path == SK_PATH_ROTATION) {
            for (int k = 0; k < 4; k++) w16(r + 2 * k, t->rlo[k]), w16(r + 8 + 2 * k, t->rhi[k]);
            r += 16;
        } else {
            for (int k = 0; k < 3; k++) wf32(r + 4 * k, t->cmin[k]), wf32(r + 12 + 4 * k, t->cext[k]);
            r += 24;
        }
    }
    for (uint32_t i = 0; i < T; i++) { /* the step keys as the input has them */
        if (!c->tr[i].step) continue;
        const sk_track *st = &c->clip->tracks[i];
        size_t nv = (size_t)st->key_count * st->width;
        w32(b + ok, st->key_count);
        for (uint32_t k = 0; k < st->key_count; k++) wf32(b + ok + 4u + 4u * k, c->clip->times[st->time_offset + k]);
        for (size_t k = 0; k < nv; k++) wf32(b + ok + 4u + 4u * st->key_count + 4u * k, c->clip->values[st->value_offset + k]);
        ok += 4u + 4u * (st->key_count + nv);
    }
    size_t o = os;
    for (uint32_t s = 0; s < S; s++) {
        uint32_t f0 = s * c->L, nf = s + 1 < S ? c->L : c->N - f0;
        const uint8_t *lv = &c->level[(size_t)s * A];
        for (uint32_t a = 0; a < A; a++) b[o + a] = (uint8_t)(lv[a] | c->drop[(size_t)s * A + a] << 4);
        memcpy(b + o + A, &c->srange[(size_t)s * A * 6], 6u * (size_t)A);
        for (uint32_t a = 0; a < A; a++)
            if (!lv[a]) sk_cc_zero_bits_range(&c->srange[((size_t)s * A + a) * 6], b + o + A + 6u * a);
        uint8_t *bits = b + o + 7u * (size_t)A;
        uint64_t pos = 0, acc = 0; /* bits least significant first; acc holds the nacc bits not yet written */
        uint32_t nacc = 0;
        for (uint32_t i = 0; i < nf; i++)
            for (uint32_t a = 0; a < A; a++) {
                uint32_t nb = SK_CC_BITS[lv[a]];
                if (!nb) continue;
                const uint8_t *sr = &c->srange[((size_t)s * A + a) * 6];
                double n[3];
                stored(c, s, a, f0 + i, n);
                for (int k = 0; k < 3; k++) {
                    acc |= (uint64_t)quantise(n[k], sr[k], sr[3 + k], nb) << nacc;
                    nacc += nb, pos += nb;
                    for (; nacc >= 8; nacc -= 8, acc >>= 8) bits[(pos - nacc) >> 3] = (uint8_t)acc;
                }
            }
        if (nacc) bits[(pos - nacc) >> 3] = (uint8_t)acc;
        o += 7u * (size_t)A + (size_t)((pos + 7) / 8);
    }
    *size_out = size;
    return b;
}

/* The check's scratch (sk_cs_output): a batch of up to EP samples (their
 * frame, quarter after it and time), the two poses of a sample, the squared
 * errors of the batch per joint, every error of the round, and per segment
 * and animated track whether the round raised its bit rate. */
typedef struct check {
    sk_transform *pl, *ql; /* J: the result's pose, the raw one */
    double *bev;           /* J x EP */
    double *errs;          /* 4 N J */
    size_t nerrs;
    size_t nbmax;          /* EP */
    uint32_t *bk;          /* nbmax: frame */
    uint8_t *bh;           /* nbmax: quarter (0: at the frame, 2: halfway) */
    double *bt;            /* nbmax: time */
    uint8_t *bump;         /* S x A */
    double mx;             /* the round's largest error */
    bool fail, stuck;      /* an error above the threshold; a bit rate that cannot rise */
} check;

/* The batch's poses, the result res's and the raw clip's, into the field rows
 * (the result's for joint j at qs row block j, the raw one's at J + j). */
static sk_result check_poses(ctx *c, const sk_clip *res, check *k, uint32_t nb, sk_error *err) {
    const sk_clip *clip = c->clip;
    const sk_skeleton *s = c->s;
    sk_transform *pl = k->pl, *ql = k->ql;
    const uint32_t *bk = k->bk;
    const uint8_t *bh = k->bh;
    const double *bt = k->bt;
    sk_result r = SK_OK;
    for (uint32_t i = 0; i < nb && r == SK_OK; i++) {
        memcpy(pl, s->rest, c->J * sizeof(sk_transform));
        r = sk_clip_sample_tracks(res, s, bt[i], SK_LOOP_CLAMP, NULL, 0, SK_POSE_OF(s, pl, NULL), err);
        if (r != SK_OK) break;
        const sk_transform *raw;
        if (bh[i] == 1 || bh[i] == 3) { /* a quarter: the raw clip sampled here */
            memcpy(ql, s->rest, c->J * sizeof(sk_transform));
            r = sk_clip_sample_tracks(clip, s, bt[i], SK_LOOP_CLAMP, NULL, 0, SK_POSE_OF(s, ql, NULL), err);
            raw = ql;
        } else {
            r = sk_cs_raw_pose(c, bk[i], bh[i] != 0, ql, err);
            raw = ql;
        }
        for (uint32_t j = 0; j < c->J; j++) {
            fields_put(c, &c->qs[(size_t)j * 10 * c->EP], i, &pl[j]);
            fields_put(c, &c->qs[((size_t)c->J + j) * 10 * c->EP], i, &raw[j]);
        }
    }
    return r;
}

/* The batch's squared errors per joint (bev) from its field rows: local
 * matrices, then model matrices joint after joint for all the samples at
 * once, raw and lossy, through the search's matrix blocks (free now); the
 * errors are shell_err's. */
static void check_errors(ctx *c, check *k, uint32_t nb) {
    const sk_skeleton *s = c->s;
    double *cl_local = c->lm, *cl_model = c->mpool, *cr_local = c->mpool + (size_t)c->J * 12 * c->EP, *cr_model = c->mr;
    c->E = nb, c->En = (nb + 3u) & ~3u;
    for (uint32_t j = 0; j < c->J; j++) {
        sk_cs_lanes_to_m34(c, &c->qs[(size_t)j * 10 * c->EP], soa_joint(c, cl_local, j));
        sk_cs_lanes_to_m34(c, &c->qs[((size_t)c->J + j) * 10 * c->EP], soa_joint(c, cr_local, j));
        int32_t p = s->parents[j];
        const double *prm = p < 0 ? NULL : soa_joint(c, cr_model, (uint32_t)p);
        const double *plm = p < 0 ? NULL : soa_joint(c, cl_model, (uint32_t)p);
        double *ev = &k->bev[(size_t)j * c->EP];
#ifdef SK_CS_HAVE_WIDE
        if (c->wide) {
            sk_cs_joint_err_avx2(soa_joint(c, cr_local, j), prm, NULL, soa_joint(c, cr_model, j), ev, c->En, c->EP, c->shell);
            sk_cs_joint_err_avx2(soa_joint(c, cl_local, j), plm, soa_joint(c, cr_model, j), soa_joint(c, cl_model, j), ev,
                                 c->En, c->EP, c->shell);
        } else
#endif
        {
            sk_cs_joint_err(soa_joint(c, cr_local, j), prm, NULL, soa_joint(c, cr_model, j), ev, c->En, c->EP, c->shell);
            sk_cs_joint_err(soa_joint(c, cl_local, j), plm, soa_joint(c, cr_model, j), soa_joint(c, cl_model, j), ev, c->En,
                            c->EP, c->shell);
        }
    }
}

/* The batch's errors into errs and mx; where a sample's worst joint is
 * above the threshold, the bit rates of the tracks on that joint's chain
 * raised by one in the segments of the sample's two frames (once per round
 * each; a track at the highest rate already is passed over, and the round is
 * stuck only where no track on the chain rose: bits are spent where the
 * check fails before the attempt is given up). */
static void check_raise(ctx *c, check *k, uint32_t nb) {
    const sk_skeleton *s = c->s;
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t worst = UINT32_MAX;
        double we = c->thr;
        for (uint32_t j = 0; j < c->J; j++) {
            double e = sqrt(k->bev[(size_t)j * c->EP + i]);
            k->errs[k->nerrs++] = e;
            if (!(e <= k->mx)) k->mx = e;
            if (!(e <= we)) we = e, worst = j;
        }
        if (worst == UINT32_MAX) continue;
        k->fail = true;
        uint32_t segs[2] = {k->bk[i] / c->L, (k->bk[i] + (k->bh[i] != 0)) / c->L};
        bool rose = false;
        for (int32_t j = (int32_t)worst; j >= 0; j = s->parents[j])
            for (uint32_t a = 0; a < c->A; a++) {
                if (c->tr[c->anim[a]].joint != (uint32_t)j) continue;
                for (int q = 0; q < 2; q++) {
                    size_t at = (size_t)segs[q] * c->A + a;
                    if (k->bump[at] == 1) rose = true; /* raised this round already */
                    if (k->bump[at]) continue;
                    if (c->level[at] + 1u < SK_CC_LEVELS) c->level[at]++, k->bump[at] = 1, rose = true;
                    else k->bump[at] = 2; /* at the highest rate */
                }
            }
        if (!rose) k->stuck = true;
    }
}

/* A batch of nb samples checked. */
static sk_result check_batch(ctx *c, const sk_clip *res, check *k, uint32_t nb, sk_error *err) {
    if (!nb) return SK_OK;
    sk_result r = check_poses(c, res, k, nb, err);
    if (r != SK_OK) return r;
    check_errors(c, k, nb);
    check_raise(c, k, nb);
    return SK_OK;
}

/* One round of the check of the result res: every frame, the quarters
 * between frames and the input's key times between frames (c->kt: sampled
 * as the quarters are, the raw clip at that time; their frame the one
 * before), a batch of EP samples at a time. */
static sk_result check_round(ctx *c, const sk_clip *res, check *k, sk_error *err) {
    sk_result r = SK_OK;
    memset(k->bump, 0, (size_t)c->S * c->A);
    k->fail = k->stuck = false;
    k->nerrs = 0;
    k->mx = 0.0;
    uint32_t nb = 0;
    for (uint32_t f = 0; f < c->N && r == SK_OK; f++)
        for (int h = 0; h < 4 && r == SK_OK; h++) {
            if (h && f + 1 >= c->N) continue;
            double t = f + 1 == c->N && c->N > 1 ? (double)c->dur : (double)f / (double)c->rate;
            if (h) t += 0.25 * h * ((f + 2 == c->N ? (double)c->dur : (double)(f + 1) / (double)c->rate) - t);
            k->bk[nb] = f, k->bh[nb] = (uint8_t)h, k->bt[nb++] = t;
            if (nb < k->nbmax) continue;
            r = check_batch(c, res, k, nb, err);
            nb = 0;
        }
    for (uint32_t i = 0; i < c->nkt && r == SK_OK && c->N > 1; i++) {
        double t = c->kt[i], f = floor(t * (double)c->rate);
        uint32_t fi = f < 0.0 ? 0u : f >= (double)(c->N - 2) ? c->N - 2 : (uint32_t)f;
        k->bk[nb] = fi, k->bh[nb] = 1, k->bt[nb++] = t;
        if (nb < k->nbmax) continue;
        r = check_batch(c, res, k, nb, err);
        nb = 0;
    }
    if (r == SK_OK) r = check_batch(c, res, k, nb, err);
    return r;
}

/* The blob built, loaded and checked, its bit rates raised where the error is
 * above the threshold and again until it holds (or SK_ERR_UNSUPPORTED where
 * it cannot): SK_OK with *out and st's errors. */
sk_result sk_cs_output(ctx *c, double upm, sk_clip **out, sk_compress_stats *st, sk_error *err) {
    const sk_clip *clip = c->clip;
    sk_result r = SK_OK;
    bool ok = true;
    uint8_t *blob = NULL;
    size_t blob_size = 0;
    check k;
    memset(&k, 0, sizeof k);
    /* the result, checked at every frame and halfway between frames; raise bit rates where it fails */
    size_t ne = ((size_t)4 * c->N + c->nkt) * c->J;
    k.errs = cx_alloc_raw(c, ne, sizeof(double), &ok);
    k.pl = sk_alloc(&c->al, (c->J ? c->J : 1) * sizeof(sk_transform));
    k.ql = sk_alloc(&c->al, (c->J ? c->J : 1) * sizeof(sk_transform));
    k.bev = cx_alloc_raw(c, (size_t)c->J * c->EP, sizeof(double), &ok);
    k.bump = sk_alloc(&c->al, (size_t)c->S * c->A + 1);
    if (!k.errs || !k.pl || !k.ql || !k.bev || !k.bump) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    sk_clip *res = NULL;
    k.nbmax = c->EP;
    k.bk = cx_alloc_raw(c, k.nbmax, sizeof(uint32_t), &ok);
    k.bh = cx_alloc_raw(c, k.nbmax, 1, &ok);
    k.bt = cx_alloc_raw(c, k.nbmax, sizeof(double), &ok);
    if (!ok && r == SK_OK) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int round = 0; r == SK_OK; round++) {
        blob = build_blob(c, &blob_size);
        if (!blob) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
        r = sk_clip_from_compressed(sk_clip_name(clip), blob, blob_size, false, &c->al, &res, err);
        if (r != SK_OK) break;
        res->blob_owned = true;
        blob = NULL;
        r = check_round(c, res, &k, err);
        if (r != SK_OK) break;
        if (!k.fail) {
            st->max_error_cm = k.mx / (0.01 * upm);
            st->p99_error_cm = sk_cs_p99(k.errs, k.nerrs) / (0.01 * upm);
            st->error_samples = (uint32_t)k.nerrs;
            *out = res;
            res = NULL;
            break;
        }
        sk_clip_destroy(res);
        res = NULL;
        if (k.stuck || round > 60) {
            r = sk_error_set(err, SK_ERR_UNSUPPORTED, "compress: clip '%s': the error cannot be met at %g frames/s",
                             sk_clip_name(clip), (double)c->rate);
            break;
        }
    }
    sk_clip_destroy(res); /* a check that failed part-way */
    sk_free(&c->al, k.pl, (c->J ? c->J : 1) * sizeof(sk_transform));
    sk_free(&c->al, k.ql, (c->J ? c->J : 1) * sizeof(sk_transform));
    cx_free(c, k.bev, (size_t)c->J * c->EP, sizeof(double));
    cx_free(c, k.bk, k.nbmax, sizeof(uint32_t));
    cx_free(c, k.bh, k.nbmax, 1);
    cx_free(c, k.bt, k.nbmax, sizeof(double));
    sk_free(&c->al, k.bump, (size_t)c->S * c->A + 1);
    if (blob) sk_free(&c->al, blob, blob_size);
    cx_free(c, k.errs, ne, sizeof(double));
    return r;
}
