/* The compressor's search (compress.c calls it per segment): a bit rate per
 * animated track, chosen against the model-space shell error with the
 * hierarchy in the error; the raw clip's values and poses it measures
 * against. */
#include "core/clip_internal.h"
#include "core/math_inline.h"
#include "offline/compress_internal.h"
#include "skelanim/core/simd.h"

#include <math.h>
#include <stdlib.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* the FMA copies below must round as the plain ones (GCC: off in C11 mode) */
#endif
#include "offline/compress_ctx.h"

/* Share of the error a track may use alone before the tracks are combined. */
#define SK_CC_ISOLATED_SHARE 0.5

static void put_value(sk_transform *x, uint8_t path, const float *v) {
    if (path == SK_PATH_ROTATION) x->r = sk_quat_make(v[0], v[1], v[2], v[3]);
    else if (path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(v[0], v[1], v[2]);
    else x->s = sk_vec3_make(v[0], v[1], v[2]);
}

static void get_value(const sk_transform *x, uint8_t path, float *v) {
    if (path == SK_PATH_ROTATION) {
        sk_quat q = x->r;
        if (q.w < 0.0f) q.x = -q.x, q.y = -q.y, q.z = -q.z, q.w = -q.w;
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
        sk_vec3 t = path == SK_PATH_TRANSLATION ? x->t : x->s;
        v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = 0.0f;
    }
}

/* Decodes track a's frames of the current segment at level lvl into dv (and
 * the next frame after the segment, raw, for the halfway sample across). */
__attribute__((always_inline)) static inline void decode_track_body(const ctx *c, uint32_t seg, uint32_t a, uint32_t lvl,
                                                                     float *dv) {
    const ctrack *t = &c->tr[c->anim[a]];
    size_t at = (size_t)seg * c->A + a;
    uint32_t bits = SK_CC_BITS[lvl], d = c->drop[at];
    const uint8_t *sr = &c->srange[at * 6];
    uint8_t zr[6];
    if (!lvl) sk_cc_zero_bits_range(sr, zr), sr = zr; /* as build_blob stores it */
    const double *nr = &c->nrm[(size_t)a * c->L * 3];
    float off[3], sc[3];
    for (uint32_t k = 0; k < 3; k++) {
        uint32_t comp = k + (k >= d);
        sk_cc_coef(t->cmin[comp], sk_cc_ext255(t->cext[comp]), sr[k], sr[3 + k], lvl, &off[k], &sc[k]);
    }
    for (uint32_t i = 0; i < c->nf; i++) {
        float x[3];
        for (uint32_t k = 0; k < 3; k++) x[k] = sk_cc_value(off[k], sc[k], quantise_u(nr[i * 3 + k], bits));
        sk_cc_place(&dv[i * 4], x, d, t->path == SK_PATH_ROTATION);
    }
    if (c->f0 + c->nf < c->N) memcpy(&dv[c->nf * 4], aval(c, a, c->f0 + c->nf), 4 * sizeof(float));
}

/* Track a's decoded frames dv at sample e, written into x. */
__attribute__((always_inline)) static inline void track_sample_body(const ctx *c, const ctrack *t, const float *dv, uint32_t e,
                                                                     sk_transform *x) {
    uint32_t i = c->ek[e];
    const float *v0 = &dv[i * 4], *v1 = c->eu[e] > 0.0f ? &dv[(i + 1) * 4] : v0;
    if (t->path == SK_PATH_ROTATION) x->r = sk_cc_qlerp(v0, v1, c->eu[e]);
    else if (t->path == SK_PATH_TRANSLATION) x->t = sk_cc_vlerp(v0, v1, c->eu[e]);
    else x->s = sk_cc_vlerp(v0, v1, c->eu[e]);
}

/* O = P x Lc over n lanes (n a multiple of 4): m34_mul's products and sums
 * in its order (the axes without its "+ 0.0", see below). */
static void matmul(const double *restrict Lc, const double *restrict P, double *restrict O, uint32_t n, size_t ep) {
    for (size_t e = 0; e < n; e++)
        for (size_t col = 0; col < 4; col++)
            for (size_t r = 0; r < 3; r++) {
                double v = P[r * ep + e] * Lc[(col * 3) * ep + e] + P[(3 + r) * ep + e] * Lc[(col * 3 + 1) * ep + e] +
                           P[(6 + r) * ep + e] * Lc[(col * 3 + 2) * ep + e];
                O[(col * 3 + r) * ep + e] = col == 3 ? v + P[(9 + r) * ep + e] : v;
            }
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(SK_NO_SIMD)
#include <immintrin.h>
/* The same four lanes at a time (separate multiplies and adds: no fused
 * multiply-add, so the same roundings). */
__attribute__((target("avx2"))) static void matmul_avx2(const double *restrict Lc, const double *restrict P,
                                                        double *restrict O, uint32_t n, size_t ep) {
    for (size_t e = 0; e < n; e += 4) {
        __m256d a[12];
        for (size_t k = 0; k < 12; k++) a[k] = _mm256_loadu_pd(&P[k * ep + e]);
        for (size_t col = 0; col < 4; col++) {
            __m256d b0 = _mm256_loadu_pd(&Lc[(col * 3) * ep + e]), b1 = _mm256_loadu_pd(&Lc[(col * 3 + 1) * ep + e]);
            __m256d b2 = _mm256_loadu_pd(&Lc[(col * 3 + 2) * ep + e]);
            for (size_t r = 0; r < 3; r++) {
                __m256d v = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[r], b0), _mm256_mul_pd(a[3 + r], b1)),
                                          _mm256_mul_pd(a[6 + r], b2));
                if (col == 3) v = _mm256_add_pd(v, a[9 + r]);
                _mm256_storeu_pd(&O[(col * 3 + r) * ep + e], v);
            }
        }
    }
}
#endif

/* One joint at every sample: model matrices O = P x Lc (Lc when there is no
 * parent); returns the largest squared shell error against the raw model R
 * over the n samples (n a multiple of 4), NaN when one is NaN, and leaves
 * the squared errors in ev (R NULL: the model matrices only). The square
 * root of the largest is the largest square root (sqrt is monotonic), so the
 * errors are those of shell_err. m34_mul's "+ 0.0" on the axes is left out:
 * it only turns -0 into +0, which changes no error. */
#define SK_CS_JOINT_KERNEL(name, attr, mm)                                                                               \
    attr double name(const double *restrict Lc, const double *restrict P, const double *restrict R,          \
                            double *restrict O, double *restrict ev, uint32_t n, size_t ep, double shell) {         \
        if (P) {                                                                                                     \
            mm(Lc, P, O, n, ep);                                                                                     \
        } else {                                                                                                     \
            for (uint32_t k = 0; k < 12; k++)                                                                        \
                for (uint32_t e = 0; e < n; e++) O[k * ep + e] = Lc[k * ep + e];                                     \
        }                                                                                                            \
        if (!R) return 0.0; /* model matrices only */                                                                \
        for (uint32_t e = 0; e < n; e++) {                                                                           \
            double dt0 = O[9 * ep + e] - R[9 * ep + e], dt1 = O[10 * ep + e] - R[10 * ep + e],                       \
                   dt2 = O[11 * ep + e] - R[11 * ep + e], e2 = 0.0;                                                  \
            for (uint32_t col = 0; col < 3; col++) {                                                                 \
                double d0 = dt0 + shell * (O[(col * 3) * ep + e] - R[(col * 3) * ep + e]);                           \
                double d1 = dt1 + shell * (O[(col * 3 + 1) * ep + e] - R[(col * 3 + 1) * ep + e]);                   \
                double d2 = dt2 + shell * (O[(col * 3 + 2) * ep + e] - R[(col * 3 + 2) * ep + e]);                   \
                double l2 = d0 * d0 + d1 * d1 + d2 * d2;                                                             \
                e2 = l2 > e2 ? l2 : e2;                                                                              \
            }                                                                                                        \
            ev[e] = e2;                                                                                              \
        }                                                                                                            \
        double m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0;                                                               \
        int nan = 0;                                                                                                 \
        for (uint32_t e = 0; e < n; e += 4) {                                                                        \
            m0 = ev[e] > m0 ? ev[e] : m0, m1 = ev[e + 1] > m1 ? ev[e + 1] : m1;                                      \
            m2 = ev[e + 2] > m2 ? ev[e + 2] : m2, m3 = ev[e + 3] > m3 ? ev[e + 3] : m3;                              \
            nan |= (ev[e] != ev[e]) | (ev[e + 1] != ev[e + 1]) | (ev[e + 2] != ev[e + 2]) | (ev[e + 3] != ev[e + 3]); \
        }                                                                                                            \
        m0 = m1 > m0 ? m1 : m0, m2 = m3 > m2 ? m3 : m2;                                                              \
        return nan ? NAN : m2 > m0 ? m2 : m0;                                                                        \
    }

/* m34_from over n lanes: q holds the transforms' 10 fields (rotation x, y,
 * z, w, scale x, y, z, translation x, y, z), a row of ep each. */
#define SK_CS_FROM_KERNEL(name, attr)                                                                                \
    attr static void name(const double *restrict q, double *restrict o, uint32_t n, size_t ep) {                     \
        const double *rx = q, *ry = q + ep, *rz = q + 2 * ep, *rw = q + 3 * ep, *sx = q + 4 * ep, *sy = q + 5 * ep;  \
        const double *sz = q + 6 * ep, *tx = q + 7 * ep, *ty = q + 8 * ep, *tz = q + 9 * ep;                          \
        double *o0 = o, *o1 = o + ep, *o2 = o + 2 * ep, *o3 = o + 3 * ep, *o4 = o + 4 * ep, *o5 = o + 5 * ep;        \
        double *o6 = o + 6 * ep, *o7 = o + 7 * ep, *o8 = o + 8 * ep, *o9 = o + 9 * ep, *o10 = o + 10 * ep;           \
        double *o11 = o + 11 * ep;                                                                                   \
        for (size_t e = 0; e < n; e++) {                                                                             \
            double qx = rx[e], qy = ry[e], qz = rz[e], qw = rw[e];                                                   \
            double xx = qx * qx, yy = qy * qy, zz = qz * qz, xy = qx * qy, xz = qx * qz, yz = qy * qz, wx = qw * qx, \
                   wy = qw * qy, wz = qw * qz;                                                                       \
            o0[e] = (1 - 2 * (yy + zz)) * sx[e], o1[e] = 2 * (xy + wz) * sx[e], o2[e] = 2 * (xz - wy) * sx[e];       \
            o3[e] = 2 * (xy - wz) * sy[e], o4[e] = (1 - 2 * (xx + zz)) * sy[e], o5[e] = 2 * (yz + wx) * sy[e];       \
            o6[e] = 2 * (xz + wy) * sz[e], o7[e] = 2 * (yz - wx) * sz[e], o8[e] = (1 - 2 * (xx + yy)) * sz[e];       \
            o9[e] = tx[e], o10[e] = ty[e], o11[e] = tz[e];                                                           \
        }                                                                                                            \
    }

SK_CS_JOINT_KERNEL(sk_cs_joint_err, , matmul)
SK_CS_FROM_KERNEL(lanes_from, )
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(SK_NO_SIMD)
SK_CS_JOINT_KERNEL(sk_cs_joint_err_avx2, __attribute__((target("avx2"))), matmul_avx2)
SK_CS_FROM_KERNEL(lanes_from_avx2, __attribute__((target("avx2"))))
#endif

/* The decoder's arithmetic (clip_internal.h) has fused multiply-adds (fmaf):
 * where the CPU has FMA, decode_track and track_sample run as copies
 * compiled for it (fmaf one instruction instead of a call into libm), with
 * the same results (an fmaf is one rounding either way; nothing else is
 * contracted: C11 mode, and the pragma above for clang). */
static void decode_track_plain(const ctx *c, uint32_t seg, uint32_t a, uint32_t lvl, float *dv) {
    decode_track_body(c, seg, a, lvl, dv);
}
static void track_sample_plain(const ctx *c, const ctrack *t, const float *dv, uint32_t e, sk_transform *x) {
    track_sample_body(c, t, dv, e, x);
}
#ifdef SK_CS_HAVE_WIDE
__attribute__((target("fma"))) static void decode_track_fma(const ctx *c, uint32_t seg, uint32_t a, uint32_t lvl, float *dv) {
    decode_track_body(c, seg, a, lvl, dv);
}
__attribute__((target("fma"))) static void track_sample_fma(const ctx *c, const ctrack *t, const float *dv, uint32_t e,
                                                              sk_transform *x) {
    track_sample_body(c, t, dv, e, x);
}
#define SK_CS_FMA(c) ((c)->fma)
#else
#define decode_track_fma decode_track_plain
#define track_sample_fma track_sample_plain
#define SK_CS_FMA(c) false
#endif
static void decode_track(const ctx *c, uint32_t seg, uint32_t a, uint32_t lvl, float *dv) {
    if (SK_CS_FMA(c)) decode_track_fma(c, seg, a, lvl, dv);
    else decode_track_plain(c, seg, a, lvl, dv);
}
static void track_sample(const ctx *c, const ctrack *t, const float *dv, uint32_t e, sk_transform *x) {
    if (SK_CS_FMA(c)) track_sample_fma(c, t, dv, e, x);
    else track_sample_plain(c, t, dv, e, x);
}

/* The field rows q (lanes [0, E) filled; padded here) into the matrix rows o. */
void sk_cs_lanes_to_m34(ctx *c, double *q, double *o) {
    for (uint32_t k = 0; k < 10; k++)
        for (uint32_t e = c->E; e < c->En; e++) q[(size_t)k * c->EP + e] = q[(size_t)k * c->EP + c->E - 1];
#ifdef SK_CS_HAVE_WIDE
    if (c->wide) lanes_from_avx2(q, o, c->En, c->EP);
    else
#endif
        lanes_from(q, o, c->En, c->EP);
}

/* The lossy local matrices of joint j from ll. */
static void local_from_ll(ctx *c, uint32_t j) {
    for (uint32_t e = 0; e < c->E; e++) fields_put(c, c->qs, e, &c->ll[(size_t)e * c->J + j]);
    sk_cs_lanes_to_m34(c, c->qs, soa_joint(c, c->lm, j));
}

/* Joint j's subtree: the joints [j, end) for which in_subtree holds (in a
 * depth-first order all of its run; else marked in c->inside, a parent
 * before its children, as sk_skeleton_create requires). */
static uint32_t subtree_mark(ctx *c, uint32_t j) {
    if (c->dfs) return c->subtree_end[j];
    c->inside[j] = 1;
    for (uint32_t jj = j + 1; jj < c->J; jj++) {
        int32_t p = c->s->parents[jj];
        c->inside[jj] = p >= (int32_t)j && c->inside[p];
    }
    return c->J;
}
static bool in_subtree(const ctx *c, uint32_t j, uint32_t end, uint32_t jj) { return jj >= j && jj < end && (c->dfs || c->inside[jj]); }

/* Lossy model matrices of joint j's subtree (subtree_mark) into ms (parents before j from ml),
 * joint j's local matrices being lj; terr[jj] = the joints' largest error;
 * returns the segment's largest error, or INFINITY as soon as one joint has
 * an error above bound (then ms and terr are partial). */
static double eval_subtree(ctx *c, uint32_t j, const double *lj, double bound) {
    uint32_t end = subtree_mark(c, j), J = c->J;
    size_t ep = c->EP;
    for (uint32_t jj = j; jj < end; jj++) {
        if (!in_subtree(c, j, end, jj)) continue;
        int32_t p = c->s->parents[jj];
        const double *pm = p < 0 ? NULL : (uint32_t)p >= j ? c->ms[p] : c->ml[p];
        const double *lc = jj == j ? lj : soa_joint(c, c->lm, jj);
        double *o = c->ms[jj];
        const double *rm = soa_joint(c, c->mr, jj);
        double m2;
#ifdef SK_CS_HAVE_WIDE
        if (c->wide) m2 = sk_cs_joint_err_avx2(lc, pm, rm, o, c->ev, c->En, ep, c->shell);
        else
#endif
            m2 = sk_cs_joint_err(lc, pm, rm, o, c->ev, c->En, ep, c->shell);
        double mx = sqrt(m2);
        if (!(mx <= bound)) return INFINITY;
        c->terr[jj] = mx;
    }
    double mx = 0.0;
    for (uint32_t jj = 0; jj < J; jj++) {
        double v = in_subtree(c, j, end, jj) ? c->terr[jj] : c->jerr[jj];
        if (!(v <= mx)) mx = v;
    }
    return mx;
}

static void commit_subtree(ctx *c, uint32_t j) {
    uint32_t end = subtree_mark(c, j);
    for (uint32_t jj = j; jj < end; jj++) {
        if (!in_subtree(c, j, end, jj)) continue;
        double *t = c->ml[jj];
        c->ml[jj] = c->ms[jj], c->ms[jj] = t;
        c->jerr[jj] = c->terr[jj];
    }
}

/* Track a at level lvl: the segment's largest error (INFINITY when a joint
 * is above bound, then ms and terr are partial). Only the track's joint gets
 * new local matrices (kept per track for its last level); its descendants'
 * are the cached ones. */
static double trial(ctx *c, uint32_t seg, uint32_t a, uint32_t lvl, double bound) {
    const ctrack *t = &c->tr[c->anim[a]];
    uint32_t j = t->joint;
    double *tl = &c->tl[(size_t)a * 12 * c->EP];
    if (c->tlv[a] != lvl) {
        sk_transform *tx = &c->tx[(size_t)a * 2 * c->L];
        decode_track(c, seg, a, lvl, c->dec);
        for (uint32_t e = 0; e < c->E; e++) {
            tx[e] = c->ll[(size_t)e * c->J + j];
            track_sample(c, t, c->dec, e, &tx[e]);
            fields_put(c, c->qs, e, &tx[e]);
        }
        sk_cs_lanes_to_m34(c, c->qs, tl);
        c->tlv[a] = (uint8_t)lvl;
    }
    return eval_subtree(c, j, tl, bound);
}

/* Keeps track a at level lvl, whose trial left complete model matrices in ms
 * and errors in terr. */
static void keep(ctx *c, uint32_t seg, uint32_t a, uint32_t lvl) {
    uint32_t j = c->tr[c->anim[a]].joint;
    c->level[(size_t)seg * c->A + a] = (uint8_t)lvl;
    commit_subtree(c, j);
    memcpy(soa_joint(c, c->lm, j), &c->tl[(size_t)a * 12 * c->EP], 12 * (size_t)c->EP * sizeof(double));
    const sk_transform *tx = &c->tx[(size_t)a * 2 * c->L];
    for (uint32_t e = 0; e < c->E; e++) c->ll[(size_t)e * c->J + j] = tx[e];
    for (uint32_t b = 0; b < c->A; b++) /* the other tracks of the joint were built on its old transforms */
        if (b != a && c->tr[c->anim[b]].joint == j) c->tlv[b] = 0xff;
}

/* Every track at its level in ll and lm, then the error of every joint. */
static double eval_all(ctx *c, uint32_t seg) {
    for (uint32_t a = 0; a < c->A; a++) {
        const ctrack *t = &c->tr[c->anim[a]];
        decode_track(c, seg, a, c->level[(size_t)seg * c->A + a], c->dec);
        for (uint32_t e = 0; e < c->E; e++) track_sample(c, t, c->dec, e, &c->ll[(size_t)e * c->J + t->joint]);
    }
    for (uint32_t j = 0; j < c->J; j++) local_from_ll(c, j);
    memset(c->tlv, 0xff, c->A);
    double mx = 0.0;
    for (uint32_t j = 0; j < c->J; j = c->subtree_end[j]) {
        eval_subtree(c, j, soa_joint(c, c->lm, j), INFINITY);
        commit_subtree(c, j);
    }
    for (uint32_t j = 0; j < c->J; j++)
        if (!(c->jerr[j] <= mx)) mx = c->jerr[j];
    return mx;
}

/* The time of frame k. */
static double frame_time(const ctx *c, uint32_t k) {
    return k + 1 == c->N && c->N > 1 ? (double)c->dur : (double)k / (double)c->rate;
}

/* Samples every track's raw value at the frames into tv. */
sk_result sk_cs_sample_raw(ctx *c, sk_error *err) {
    uint32_t J = c->J;
    for (uint32_t k = 0; k < c->N; k++) {
        sk_pose p = sk_pose_view(c->pose, J, NULL, 0);
        memcpy(p.local, c->s->rest, J * sizeof(sk_transform));
        sk_result r = sk_clip_sample_tracks(c->clip, c->s, frame_time(c, k), SK_LOOP_CLAMP, NULL, 0, &p, err);
        if (r != SK_OK) return r;
        for (uint32_t i = 0; i < c->T; i++)
            get_value(&c->pose[c->tr[i].joint], c->tr[i].path, &c->tv[((size_t)i * c->N + k) * 4]);
    }
    return SK_OK;
}

/* The raw pose at frame k (half: halfway after it, sampled) into out. Rebuilt
 * from tv, a rotation may have the other sign than sampled: the same matrix. */
sk_result sk_cs_raw_pose(const ctx *c, uint32_t k, bool half, sk_transform *out, sk_error *err) {
    memcpy(out, c->s->rest, c->J * sizeof(sk_transform));
    if (half) {
        sk_pose p = sk_pose_view(out, c->J, NULL, 0);
        return sk_clip_sample_tracks(c->clip, c->s, 0.5 * (frame_time(c, k) + frame_time(c, k + 1)), SK_LOOP_CLAMP, NULL, 0,
                                     &p, err);
    }
    for (uint32_t i = 0; i < c->T; i++) put_value(&out[c->tr[i].joint], c->tr[i].path, &c->tv[((size_t)i * c->N + k) * 4]);
    return SK_OK;
}

/* The segment's samples (each frame, and halfway to the next one but after
 * the clip's last): the raw poses, into ll (the constant tracks at their
 * stored values) and the field rows. */
static sk_result segment_samples(ctx *c, uint32_t seg, sk_error *err) {
    uint32_t J = c->J;
    c->f0 = seg * c->L;
    c->nf = c->N - c->f0 < c->L ? c->N - c->f0 : c->L;
    c->E = 0;
    for (uint32_t i = 0; i < c->nf; i++) {
        c->ek[c->E] = i, c->eu[c->E++] = 0.0f;
        if (c->f0 + i + 1 < c->N) c->ek[c->E] = i, c->eu[c->E++] = 0.5f;
    }
    c->En = (c->E + 3u) & ~3u;
    for (uint32_t e = 0; e < c->E; e++) {
        uint32_t k = c->f0 + c->ek[e];
        const sk_transform *raw = c->pose;
        sk_result r = sk_cs_raw_pose(c, k, c->eu[e] > 0.0f, c->pose, err);
        if (r != SK_OK) return r;
        memcpy(&c->ll[(size_t)e * J], raw, J * sizeof(sk_transform));
        for (uint32_t j = 0; j < J; j++) fields_put(c, &c->qs[(size_t)j * 10 * c->EP], e, &raw[j]);
        for (uint32_t i = 0; i < c->T; i++)
            if (!c->tr[i].anim && !c->tr[i].step) /* a step track is exact: its raw value */
                put_value(&c->ll[(size_t)e * J + c->tr[i].joint], c->tr[i].path, c->tr[i].cval);
    }
    return SK_OK;
}

/* The raw model matrices (mr) of the segment's samples (lm as scratch for
 * the raw local ones: eval_all sets it). */
static void segment_raw_model(ctx *c) {
    uint32_t J = c->J;
    for (uint32_t j = 0; j < J; j++) {
        double *lc = soa_joint(c, c->lm, j);
        sk_cs_lanes_to_m34(c, &c->qs[(size_t)j * 10 * c->EP], lc);
        int32_t p = c->s->parents[j];
        const double *pm = p < 0 ? NULL : soa_joint(c, c->mr, (uint32_t)p);
#ifdef SK_CS_HAVE_WIDE
        if (c->wide) sk_cs_joint_err_avx2(lc, pm, NULL, soa_joint(c, c->mr, j), c->ev, c->En, c->EP, c->shell);
        else
#endif
            sk_cs_joint_err(lc, pm, NULL, soa_joint(c, c->mr, j), c->ev, c->En, c->EP, c->shell);
    }
}

/* The stored components of the segment's frames normalised in the clip
 * range (nrm), the segment ranges in 1/255 of it (srange), then nrm
 * normalised in them (seg_unit). */
static void segment_ranges(ctx *c, uint32_t seg) {
    uint32_t A = c->A;
    for (uint32_t a = 0; a < A; a++)
        for (uint32_t i = 0; i < c->nf; i++) stored(c, seg, a, c->f0 + i, &c->nrm[((size_t)a * c->L + i) * 3]);
    /* segment ranges, in 1/255 of the clip range */
    for (uint32_t a = 0; a < A; a++) {
        uint8_t *sr = &c->srange[((size_t)seg * A + a) * 6];
        for (int k = 0; k < 3; k++) {
            double lo = 1.0, hi = 0.0;
            for (uint32_t i = 0; i < c->nf; i++) {
                double n = c->nrm[((size_t)a * c->L + i) * 3 + k];
                if (n < lo) lo = n;
                if (n > hi) hi = n;
            }
            if (hi < lo) hi = lo;
            double qlo = floor(lo * 255.0), qhi = ceil(hi * 255.0);
            if (qlo < 0) qlo = 0;
            if (qlo > 255) qlo = 255;
            if (qhi > 255) qhi = 255;
            if (qhi < qlo) qhi = qlo;
            sr[k] = (uint8_t)qlo;
            sr[3 + k] = (uint8_t)(qhi - qlo);
        }
    }
    for (uint32_t a = 0; a < A; a++) {
        const uint8_t *sr = &c->srange[((size_t)seg * A + a) * 6];
        double *nr = &c->nrm[(size_t)a * c->L * 3];
        for (uint32_t i = 0; i < c->nf; i++)
            for (int k = 0; k < 3; k++) nr[i * 3 + k] = seg_unit(nr[i * 3 + k], sr[k], sr[3 + k]);
    }
}

/* Phase 1 of the search: each track alone (the others near exact) at its
 * lowest level within a share of the error (by bisection). */
static sk_result isolated_levels(ctx *c, uint32_t seg, sk_error *err) {
    uint32_t A = c->A;
    uint8_t *lv = &c->level[(size_t)seg * A];
    uint8_t tmp_small[256];
    uint8_t *iso_l = A <= 256 ? tmp_small : sk_alloc(&c->al, A);
    if (!iso_l) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t a = 0; a < A; a++) {
        uint32_t lo = 0, hi = SK_CC_LEVELS - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (trial(c, seg, a, mid, SK_CC_ISOLATED_SHARE * c->thr) <= SK_CC_ISOLATED_SHARE * c->thr) hi = mid;
            else lo = mid + 1;
        }
        iso_l[a] = (uint8_t)lo;
    }
    for (uint32_t a = 0; a < A; a++) lv[a] = iso_l[a];
    if (iso_l != tmp_small) sk_free(&c->al, iso_l, A);
    return SK_OK;
}

/* Phase 2, from the segment's largest error mx: bit rates raised on the
 * chain of the worst joint until every joint is within the error, the track
 * whose rise lowers the error most first; SK_ERR_UNSUPPORTED when none on
 * the chain can rise. */
static sk_result raise_worst(ctx *c, uint32_t seg, double mx) {
    uint32_t J = c->J, A = c->A;
    uint8_t *lv = &c->level[(size_t)seg * A];
    while (!(mx <= c->thr)) {
        uint32_t w = 0;
        for (uint32_t j = 1; j < J; j++)
            if (!(c->jerr[j] <= c->jerr[w])) w = j;
        double best = INFINITY;
        uint32_t best_a = UINT32_MAX;
        for (int32_t j = (int32_t)w; j >= 0; j = c->s->parents[j]) {
            for (uint32_t k = 0; k < A; k++) {
                uint32_t a = c->tord[k]; /* in track order, as the tracks' ties were always broken */
                if (c->tr[c->anim[a]].joint != (uint32_t)j || lv[a] + 1u >= SK_CC_LEVELS) continue;
                double e = trial(c, seg, a, lv[a] + 1u, best);
                if (e < best) { /* complete (below a finite bound or INFINITY): kept aside */
                    best = e, best_a = a;
                    double **tm = c->ms, *te = c->terr;
                    c->ms = c->ms2, c->ms2 = tm;
                    c->terr = c->terr2, c->terr2 = te;
                }
            }
        }
        if (best_a == UINT32_MAX) return SK_ERR_UNSUPPORTED;
        double **tm = c->ms, *te = c->terr;
        c->ms = c->ms2, c->ms2 = tm;
        c->terr = c->terr2, c->terr2 = te;
        keep(c, seg, best_a, lv[best_a] + 1u);
        mx = best;
    }
    return SK_OK;
}

/* Phase 3: bit rates lowered while the error holds, the widest tracks
 * first (a second pass when the first lowered any). */
static void lower_levels(ctx *c, uint32_t seg) {
    uint32_t A = c->A;
    uint8_t *lv = &c->level[(size_t)seg * A];
    for (int pass = 0; pass < 2; pass++) {
        bool changed = false;
        for (uint32_t bits = SK_CC_LEVELS - 1; bits > 0; bits--)
            for (uint32_t k = 0; k < A; k++) {
                uint32_t a = c->tord[k]; /* in track order: the greedy search's result depends on it */
                if (lv[a] != bits) continue;
                if (trial(c, seg, a, lv[a] - 1u, c->thr) <= c->thr) {
                    keep(c, seg, a, lv[a] - 1u);
                    changed = true;
                }
            }
        if (!changed) break;
    }
}

/* Chooses the bit rates of segment seg: SK_OK, SK_ERR_UNSUPPORTED when the
 * error cannot be met, or the raw clip's sampling error. */
sk_result sk_cs_search_segment(ctx *c, uint32_t seg, sk_error *err) {
    sk_result r = segment_samples(c, seg, err);
    if (r != SK_OK) return r;
    segment_raw_model(c);
    segment_ranges(c, seg);
    uint8_t *lv = &c->level[(size_t)seg * c->A];
    for (uint32_t a = 0; a < c->A; a++) lv[a] = SK_CC_LEVELS - 1;
    eval_all(c, seg);
    r = isolated_levels(c, seg, err);
    if (r != SK_OK) return r;
    r = raise_worst(c, seg, eval_all(c, seg));
    if (r != SK_OK) return r;
    lower_levels(c, seg);
    return SK_OK;
}
