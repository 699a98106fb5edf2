/* The compressor (offline/compress.h): per segment, a bit rate per animated
 * track chosen against the model-space shell error with the hierarchy in the
 * error, then the blob (layout in clip_internal.h), then a check of the
 * result sampled at every frame and halfway between frames. */
#include "core/clip_internal.h"
#include "core/math_inline.h"
#include "offline/compress_internal.h"
#include "skelanim/core/simd.h"

#include <math.h>
#include <stdlib.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* the FMA copies below must round as the plain ones (GCC: off in C11 mode) */
#endif

/* Share of the error a track may use alone before the tracks are combined. */
#define SK_CC_ISOLATED_SHARE 0.5

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
static double p99_of(double *v, size_t n) {
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
        if (p99_error) *p99_error = p99_of(e, n);
    }
    sk_free(a, l0, 2 * (size_t)J * sizeof *l0 + 1);
    sk_free(a, m0, 2 * (size_t)J * sizeof *m0 + 1);
    sk_free(a, e, ne * sizeof *e + 1);
    return r;
}

/* ---- the compressor ------------------------------------------------------ */

typedef struct ctrack {
    uint32_t joint;
    uint8_t path, anim;
    float cval[4];       /* constant value */
    float cmin[4], cext[4]; /* clip range per component (x,y,z,w) */
    uint16_t rlo[4], rhi[4]; /* a rotation's clip range as stored (sk_cc_rot_range) */
} ctrack;

/* The bit-rate search keeps a segment's matrices in structure-of-arrays
 * form: per joint, its 12 m34 entries, each a row of EP doubles (one per
 * sample of the segment), so that one joint at every sample is a loop over
 * the samples (vectorised; AVX2 when the CPU has it). The arithmetic, and
 * its order, is m34_from, m34_mul and shell_err's: the results are the same
 * bits as the one-sample-at-a-time model. */
typedef struct ctx {
    sk_allocator al;
    const sk_skeleton *s;
    uint32_t J, N, L, S, T, A;
    float rate, dur;
    double thr, shell;
    bool wide;           /* AVX2 kernel */
    bool fma;            /* decode_track and track_sample compiled for FMA */
    ctrack *tr;          /* T */
    uint32_t *anim;      /* A: index into tr, in the blob's data order (the rotations first) */
    uint32_t *tord;      /* A: the animated tracks (their index a) in track order, the order of the search */
    const sk_clip *clip; /* the raw clip */
    float *tv;           /* T x N x 4: every track's raw value at the frames, as get_value (rotations w >= 0) */
    sk_transform *pose;  /* J: one raw pose */
    uint8_t *level;      /* S x A */
    uint8_t *drop;       /* S x A: the component not stored (3 for T/S) */
    uint8_t *srange;     /* S x A x 6 */
    /* per segment */
    uint32_t E, En, EP, f0, nf; /* samples, samples rounded up to 4 (the lanes past E repeat the last), row stride */
    uint32_t *ek;        /* 2L: frame index within the segment */
    float *eu;           /* 2L: 0 or 0.5 */
    sk_transform *ll;    /* 2L x J lossy local */
    double *lm, *mr;     /* J x 12 x EP: lossy local, raw model */
    double *mpool;       /* 3 x J x 12 x EP: the blocks ml, ms and ms2 point to */
    double **mptr;       /* 3 x J: ml, ms, ms2 */
    double **ml, **ms;   /* J: per joint its lossy model block, its scratch block (a commit swaps them) */
    double **ms2, *terr2; /* the best trial's ms and terr so far (swapped with ms and terr) */
    double *tl;          /* A x 12 x EP: per track, its joint's local matrices at level tlv[a] (the others' as in ll) */
    sk_transform *tx;    /* A x 2L: the same as transforms */
    uint8_t *tlv;        /* A: the level of tl and tx, or 0xff */
    double *ev;          /* EP: one joint's errors */
    double *qs;          /* 2 x J x 10 x EP: transforms' fields, a row per field */
    double *nrm;         /* A x L x 3: the stored components of the segment's frames, normalised in the clip
                            range, then in the segment range (seg_unit) */
    float *dec;          /* (L + 1) x 4 decoded values of a track's frames (+ the next frame, raw) */
    double *jerr, *terr; /* J */
    uint32_t *subtree_end; /* J */
    /* Whether every joint's descendants directly follow it (depth-first order); else a
     * subtree is found by marking (inside, J) */
    bool dfs;
    uint8_t *inside;
} ctx;

static void *cx_alloc(ctx *c, size_t n, size_t elem, bool *ok) {
    size_t b;
    if (!sk_size_mul(n ? n : 1, elem, &b)) { *ok = false; return NULL; }
    void *p = sk_alloc(&c->al, b);
    if (!p) *ok = false;
    return p;
}

/* The same, not zero-filled: for buffers written in full before they are read. */
static void *cx_alloc_raw(ctx *c, size_t n, size_t elem, bool *ok) {
    size_t b;
    if (!sk_size_mul(n ? n : 1, elem, &b)) { *ok = false; return NULL; }
    void *p = sk_realloc_raw(&c->al, NULL, 0, b);
    if (!p) *ok = false;
    return p;
}

static void cx_free(ctx *c, void *p, size_t n, size_t elem) {
    if (p) sk_free(&c->al, p, (n ? n : 1) * elem);
}

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
}

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

/* Animated track a's raw value at frame k. */
static const float *aval(const ctx *c, uint32_t a, uint32_t k) { return &c->tv[((size_t)c->anim[a] * c->N + k) * 4]; }

/* Normalised n in a segment range: u in [0, 1]. */
static double seg_unit(double n, uint8_t smin, uint8_t sext) {
    double s0 = smin / 255.0, se = sext / 255.0;
    double u = se > 0.0 ? (n - s0) / se : 0.0;
    if (u < 0.0) u = 0.0;
    if (u > 1.0) u = 1.0;
    return u;
}

/* Quantised value of u in [0, 1] at a bit rate. */
static uint32_t quantise_u(double u, uint32_t bits) {
    if (!bits) return 0;
    double mq = (double)((1u << bits) - 1u);
    return (uint32_t)floor(u * mq + 0.5);
}

/* Quantised value of normalised n in a segment range at a bit rate. */
static uint32_t quantise(double n, uint8_t smin, uint8_t sext, uint32_t bits) {
    return bits ? quantise_u(seg_unit(n, smin, sext), bits) : 0;
}

/* The three stored components of track a at frame k in segment seg,
 * normalised in the clip range. */
static void stored(const ctx *c, uint32_t seg, uint32_t a, uint32_t k, double *n) {
    const ctrack *t = &c->tr[c->anim[a]];
    const float *v = aval(c, a, k);
    uint32_t d = c->drop[(size_t)seg * c->A + a];
    float sg = t->path == SK_PATH_ROTATION && v[d] < 0.0f ? -1.0f : 1.0f;
    for (uint32_t i = 0, comp = 0; i < 3; i++, comp++) {
        if (comp == d) comp++;
        double x = (double)(sg * v[comp]);
        n[i] = t->cext[comp] > 0.0f ? (x - t->cmin[comp]) / t->cext[comp] : 0.0;
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

static double *soa_joint(const ctx *c, double *base, uint32_t j) { return base + (size_t)j * 12 * c->EP; }

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

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
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
    attr static double name(const double *restrict Lc, const double *restrict P, const double *restrict R,          \
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

SK_CS_JOINT_KERNEL(joint_err, , matmul)
SK_CS_FROM_KERNEL(lanes_from, )
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define SK_CS_HAVE_WIDE 1
SK_CS_JOINT_KERNEL(joint_err_avx2, __attribute__((target("avx2"))), matmul_avx2)
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

/* Lane e of the field rows q from transform x. */
static void fields_put(const ctx *c, double *q, uint32_t e, const sk_transform *x) {
    size_t ep = c->EP;
    q[e] = x->r.x, q[ep + e] = x->r.y, q[2 * ep + e] = x->r.z, q[3 * ep + e] = x->r.w;
    q[4 * ep + e] = x->s.x, q[5 * ep + e] = x->s.y, q[6 * ep + e] = x->s.z;
    q[7 * ep + e] = x->t.x, q[8 * ep + e] = x->t.y, q[9 * ep + e] = x->t.z;
}

/* The field rows q (lanes [0, E) filled; padded here) into the matrix rows o. */
static void lanes_to_m34(ctx *c, double *q, double *o) {
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
    lanes_to_m34(c, c->qs, soa_joint(c, c->lm, j));
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
        if (c->wide) m2 = joint_err_avx2(lc, pm, rm, o, c->ev, c->En, ep, c->shell);
        else
#endif
            m2 = joint_err(lc, pm, rm, o, c->ev, c->En, ep, c->shell);
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
        lanes_to_m34(c, c->qs, tl);
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
static sk_result sample_raw(ctx *c, sk_error *err) {
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
static sk_result raw_pose(const ctx *c, uint32_t k, bool half, sk_transform *out, sk_error *err) {
    memcpy(out, c->s->rest, c->J * sizeof(sk_transform));
    if (half) {
        sk_pose p = sk_pose_view(out, c->J, NULL, 0);
        return sk_clip_sample_tracks(c->clip, c->s, 0.5 * (frame_time(c, k) + frame_time(c, k + 1)), SK_LOOP_CLAMP, NULL, 0,
                                     &p, err);
    }
    for (uint32_t i = 0; i < c->T; i++) put_value(&out[c->tr[i].joint], c->tr[i].path, &c->tv[((size_t)i * c->N + k) * 4]);
    return SK_OK;
}

/* Chooses the bit rates of segment seg: SK_OK, SK_ERR_UNSUPPORTED when the
 * error cannot be met, or the raw clip's sampling error. */
static sk_result search_segment(ctx *c, uint32_t seg, sk_error *err) {
    uint32_t J = c->J, A = c->A;
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
        sk_result r = raw_pose(c, k, c->eu[e] > 0.0f, c->pose, err);
        if (r != SK_OK) return r;
        memcpy(&c->ll[(size_t)e * J], raw, J * sizeof(sk_transform));
        for (uint32_t j = 0; j < J; j++) fields_put(c, &c->qs[(size_t)j * 10 * c->EP], e, &raw[j]);
        for (uint32_t i = 0; i < c->T; i++)
            if (!c->tr[i].anim) put_value(&c->ll[(size_t)e * J + c->tr[i].joint], c->tr[i].path, c->tr[i].cval);
    }
    /* the raw model matrices (lm as scratch for the raw local ones: eval_all sets it) */
    for (uint32_t j = 0; j < J; j++) {
        double *lc = soa_joint(c, c->lm, j);
        lanes_to_m34(c, &c->qs[(size_t)j * 10 * c->EP], lc);
        int32_t p = c->s->parents[j];
        const double *pm = p < 0 ? NULL : soa_joint(c, c->mr, (uint32_t)p);
#ifdef SK_CS_HAVE_WIDE
        if (c->wide) joint_err_avx2(lc, pm, NULL, soa_joint(c, c->mr, j), c->ev, c->En, c->EP, c->shell);
        else
#endif
            joint_err(lc, pm, NULL, soa_joint(c, c->mr, j), c->ev, c->En, c->EP, c->shell);
    }
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
    uint8_t *lv = &c->level[(size_t)seg * A];
    for (uint32_t a = 0; a < A; a++) lv[a] = SK_CC_LEVELS - 1;
    eval_all(c, seg);
    /* 1. each track alone (the others near exact): its lowest level within a share of the error */
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
    double mx = eval_all(c, seg);
    /* 2. raise bit rates on the chain of the worst joint until every joint is within the error */
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
    /* 3. lower bit rates while the error holds, the widest tracks first */
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
    return SK_OK;
}

/* ---- the blob -------------------------------------------------------------- */

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
    w32(b, SK_CC_MAGIC), w32(b + 4, SK_CC_VERSION), w32(b + 8, (uint32_t)size), w32(b + 12, c->N);
    wf32(b + 16, c->rate), wf32(b + 20, c->dur), w32(b + 24, T), w32(b + 28, A), w32(b + 32, c->L), w32(b + 36, 0);
    uint8_t *p = b + SK_CC_HEADER, *q = p + 4u * (size_t)T, *r = q + 16u * (size_t)(T - A);
    for (uint32_t i = 0; i < T; i++) {
        const ctrack *t = &c->tr[i];
        w32(p + 4u * i, t->joint | (uint32_t)t->path << SK_CC_JOINT_BITS | (uint32_t)t->anim << (SK_CC_JOINT_BITS + 2));
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

/* ---- entry points ------------------------------------------------------------ */

/* The clip's own key rate when every track's keys are uniform at one rate,
 * at multiples of the period (the first key may come later than 0); else 0. */
static double own_rate(const sk_clip *clip) {
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

/* One attempt at one sample rate: SK_OK with *out, or SK_ERR_UNSUPPORTED when the error cannot be met. */
static sk_result compress_at(const sk_clip *clip, const sk_skeleton *s, const sk_compress_options *o, double rate,
                             bool simd, const sk_allocator *alloc, sk_clip **out, sk_compress_stats *st, sk_error *err) {
    ctx cx, *c = &cx;
    memset(c, 0, sizeof *c);
    c->al = *sk_allocator_or_default(alloc);
    c->s = s;
    c->J = s->joint_count;
    c->L = o->segment_len ? o->segment_len : 16u;
    c->dur = (float)sk_clip_duration(clip);
    double nf = floor((double)c->dur * rate + 0.5);
    if (nf + 1.0 > (double)SK_CC_MAX_FRAMES)
        return sk_error_set(err, SK_ERR_LIMIT, "compress: clip '%s': more than %u frames", sk_clip_name(clip), SK_CC_MAX_FRAMES);
    c->N = (uint32_t)nf + 1;
    c->rate = c->N > 1 ? (float)((double)(c->N - 1) / (double)c->dur) : (float)rate;
    if (!(c->rate > 0.0f) || !sk_isfinite_f(c->rate)) c->rate = 1.0f;
    c->S = (c->N - 1) / c->L + 1;
    c->T = clip->track_count;
    double upm = 1.0 / (o->metres_per_unit > 0.0 ? o->metres_per_unit : 1.0);
    c->thr = (o->error_cm > 0.0 ? o->error_cm : 0.01) * 0.01 * upm;
    c->shell = (o->shell_cm > 0.0 ? o->shell_cm : 3.0) * 0.01 * upm;
    bool ok = true;
    size_t L2 = 2 * (size_t)c->L;
    c->tr = cx_alloc(c, c->T, sizeof(ctrack), &ok);
    c->clip = clip;
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
#ifdef SK_CS_HAVE_WIDE
    c->wide = simd && sk_simd_best() >= SK_SIMD_AVX2;
    c->fma = simd && __builtin_cpu_supports("fma");
#else
    (void)simd;
#endif
    c->jerr = cx_alloc(c, c->J, sizeof(double), &ok);
    c->terr = cx_alloc(c, c->J, sizeof(double), &ok);
    c->subtree_end = cx_alloc(c, c->J, sizeof(uint32_t), &ok);
    c->inside = cx_alloc(c, c->J, 1, &ok);
    sk_result r = SK_OK;
    uint8_t *blob = NULL;
    size_t blob_size = 0;
    double *errs = NULL;
    size_t nerrs = 0;
    if (!ok) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }
    for (uint32_t j = 0; j < c->J; j++) c->subtree_end[j] = sk_skeleton_subtree_end(s, j);
    /* depth-first order: each joint inside its parent's run (then every subtree is one run) */
    c->dfs = true;
    for (uint32_t j = 0; j < c->J; j++)
        if (s->parents[j] >= 0 && j >= c->subtree_end[s->parents[j]]) c->dfs = false;
    for (uint32_t i = 0; i < c->T; i++) c->tr[i].joint = clip->tracks[i].joint, c->tr[i].path = clip->tracks[i].path;
    r = sample_raw(c, err);
    if (r != SK_OK) goto done;
    /* constant or animated; clip ranges */
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
        t->anim = !cst;
        c->A += t->anim;
    }
    c->anim = cx_alloc(c, c->A, sizeof(uint32_t), &ok);
    c->tord = cx_alloc(c, c->A, sizeof(uint32_t), &ok);
    c->drop = cx_alloc(c, (size_t)c->S * c->A, 1, &ok);
    c->level = cx_alloc(c, (size_t)c->S * c->A, 1, &ok);
    c->srange = cx_alloc(c, (size_t)c->S * c->A, 6, &ok);
    c->nrm = cx_alloc(c, (size_t)c->A * c->L, 3 * sizeof(double), &ok);
    c->tl = cx_alloc(c, (size_t)c->A * 12 * c->EP, sizeof(double), &ok);
    c->tx = cx_alloc(c, (size_t)c->A * 2 * c->L, sizeof(sk_transform), &ok);
    c->tlv = cx_alloc(c, c->A, 1, &ok);
    if (!ok) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); goto done; }
    /* the animated tracks in the blob's data order (version 4): the rotations, then the
     * translations and scales, each in track order */
    for (uint32_t pass = 0, a = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < c->T; i++)
            if (c->tr[i].anim && (c->tr[i].path == SK_PATH_ROTATION) == (pass == 0)) c->anim[a++] = i;
    uint32_t nrot = 0;
    for (uint32_t i = 0; i < c->T; i++) nrot += c->tr[i].anim && c->tr[i].path == SK_PATH_ROTATION;
    for (uint32_t i = 0, k = 0, ar = 0, av = nrot; i < c->T; i++)
        if (c->tr[i].anim) c->tord[k++] = c->tr[i].path == SK_PATH_ROTATION ? ar++ : av++;
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
    for (uint32_t seg = 0; seg < c->S; seg++)
        if ((r = search_segment(c, seg, err)) != SK_OK) {
            if (r != SK_ERR_UNSUPPORTED) goto done;
            r = sk_error_set(err, SK_ERR_UNSUPPORTED, "compress: clip '%s': the error cannot be met at %g frames/s",
                             sk_clip_name(clip), (double)c->rate);
            goto done;
        }
    /* the result, checked at every frame and halfway between frames; raise bit rates where it fails */
    size_t ne = ((size_t)4 * c->N) * c->J;
    errs = cx_alloc_raw(c, ne, sizeof(double), &ok);
    sk_transform *pl = sk_alloc(&c->al, (c->J ? c->J : 1) * sizeof(sk_transform));
    sk_transform *ql = sk_alloc(&c->al, (c->J ? c->J : 1) * sizeof(sk_transform));
    double *bev = cx_alloc_raw(c, (size_t)c->J * c->EP, sizeof(double), &ok);
    uint8_t *bump = sk_alloc(&c->al, (size_t)c->S * c->A + 1);
    if (!errs || !pl || !ql || !bev || !bump) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    sk_clip *res = NULL;
    /* The check goes EP samples at a time through the search's matrix blocks
     * (free now): local matrices, then model matrices joint after joint for
     * all the samples at once, raw and lossy; the errors are shell_err's. */
    double *cl_local = c->lm, *cl_model = c->mpool, *cr_local = c->mpool + (size_t)c->J * 12 * c->EP, *cr_model = c->mr;
    size_t nbmax = c->EP;
    uint32_t *bk = cx_alloc_raw(c, nbmax, sizeof(uint32_t), &ok);
    uint8_t *bh = cx_alloc_raw(c, nbmax, 1, &ok);
    double *bt = cx_alloc_raw(c, nbmax, sizeof(double), &ok);
    if (!ok && r == SK_OK) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    for (int round = 0; r == SK_OK; round++) {
        blob = build_blob(c, &blob_size);
        if (!blob) { r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
        r = sk_clip_from_compressed(sk_clip_name(clip), blob, blob_size, false, &c->al, &res, err);
        if (r != SK_OK) break;
        res->blob_owned = true;
        blob = NULL;
        memset(bump, 0, (size_t)c->S * c->A);
        bool fail = false, stuck = false;
        nerrs = 0;
        double mx = 0.0;
        uint32_t nb = 0;
        for (uint32_t k = 0; k < c->N && r == SK_OK; k++)
            for (int h = 0; h < 4 && r == SK_OK; h++) {
                if (h && k + 1 >= c->N) continue;
                double t = k + 1 == c->N && c->N > 1 ? (double)c->dur : (double)k / (double)c->rate;
                if (h) t += 0.25 * h * ((k + 2 == c->N ? (double)c->dur : (double)(k + 1) / (double)c->rate) - t);
                bk[nb] = k, bh[nb] = (uint8_t)h, bt[nb++] = t;
                if (nb < nbmax && k + 1 < c->N) continue;
                /* a batch of nb samples */
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
                        r = raw_pose(c, bk[i], bh[i] != 0, ql, err);
                        raw = ql;
                    }
                    for (uint32_t j = 0; j < c->J; j++) {
                        fields_put(c, &c->qs[(size_t)j * 10 * c->EP], i, &pl[j]);
                        fields_put(c, &c->qs[((size_t)c->J + j) * 10 * c->EP], i, &raw[j]);
                    }
                }
                if (r != SK_OK) break;
                c->E = nb, c->En = (nb + 3u) & ~3u;
                for (uint32_t j = 0; j < c->J; j++) {
                    lanes_to_m34(c, &c->qs[(size_t)j * 10 * c->EP], soa_joint(c, cl_local, j));
                    lanes_to_m34(c, &c->qs[((size_t)c->J + j) * 10 * c->EP], soa_joint(c, cr_local, j));
                    int32_t p = s->parents[j];
                    const double *prm = p < 0 ? NULL : soa_joint(c, cr_model, (uint32_t)p);
                    const double *plm = p < 0 ? NULL : soa_joint(c, cl_model, (uint32_t)p);
                    double *ev = &bev[(size_t)j * c->EP];
#ifdef SK_CS_HAVE_WIDE
                    if (c->wide) {
                        joint_err_avx2(soa_joint(c, cr_local, j), prm, NULL, soa_joint(c, cr_model, j), ev, c->En, c->EP, c->shell);
                        joint_err_avx2(soa_joint(c, cl_local, j), plm, soa_joint(c, cr_model, j), soa_joint(c, cl_model, j), ev,
                                       c->En, c->EP, c->shell);
                    } else
#endif
                    {
                        joint_err(soa_joint(c, cr_local, j), prm, NULL, soa_joint(c, cr_model, j), ev, c->En, c->EP, c->shell);
                        joint_err(soa_joint(c, cl_local, j), plm, soa_joint(c, cr_model, j), soa_joint(c, cl_model, j), ev,
                                  c->En, c->EP, c->shell);
                    }
                }
                for (uint32_t i = 0; i < nb; i++) {
                    uint32_t worst = UINT32_MAX;
                    double we = c->thr;
                    for (uint32_t j = 0; j < c->J; j++) {
                        double e = sqrt(bev[(size_t)j * c->EP + i]);
                        errs[nerrs++] = e;
                        if (!(e <= mx)) mx = e;
                        if (!(e <= we)) we = e, worst = j;
                    }
                    if (worst == UINT32_MAX) continue;
                    fail = true;
                    uint32_t segs[2] = {bk[i] / c->L, (bk[i] + (bh[i] != 0)) / c->L};
                    for (int32_t j = (int32_t)worst; j >= 0; j = s->parents[j])
                        for (uint32_t a = 0; a < c->A; a++) {
                            if (c->tr[c->anim[a]].joint != (uint32_t)j) continue;
                            for (int q = 0; q < 2; q++) {
                                size_t at = (size_t)segs[q] * c->A + a;
                                if (bump[at]) continue;
                                bump[at] = 1;
                                if (c->level[at] + 1u < SK_CC_LEVELS) c->level[at]++;
                                else stuck = true;
                            }
                        }
                }
                nb = 0;
            }
        if (r != SK_OK) break;
        if (!fail) {
            st->max_error_cm = mx / (0.01 * upm);
            st->p99_error_cm = p99_of(errs, nerrs) / (0.01 * upm);
            st->error_samples = (uint32_t)nerrs;
            *out = res;
            res = NULL;
            break;
        }
        sk_clip_destroy(res);
        res = NULL;
        if (stuck || round > 30) {
            r = sk_error_set(err, SK_ERR_UNSUPPORTED, "compress: clip '%s': the error cannot be met at %g frames/s",
                             sk_clip_name(clip), (double)c->rate);
            break;
        }
    }
    sk_clip_destroy(res); /* a check that failed part-way */
    sk_free(&c->al, pl, (c->J ? c->J : 1) * sizeof(sk_transform));
    sk_free(&c->al, ql, (c->J ? c->J : 1) * sizeof(sk_transform));
    cx_free(c, bev, (size_t)c->J * c->EP, sizeof(double));
    cx_free(c, bk, nbmax, sizeof(uint32_t));
    cx_free(c, bh, nbmax, 1);
    cx_free(c, bt, nbmax, sizeof(double));
    sk_free(&c->al, bump, (size_t)c->S * c->A + 1);
    if (r == SK_OK) {
        uint32_t tracked = 0;
        for (uint32_t j = 0; j < c->J; j++) {
            bool has = false;
            for (uint32_t i = 0; i < c->T; i++) has = has || c->tr[i].joint == j;
            tracked += has;
        }
        st->raw_bytes = 40.0 * tracked * c->N;
        st->frames = c->N;
        st->sample_rate = c->rate;
        st->animated_tracks = c->A;
        st->constant_tracks = c->T - c->A;
        sk_clip_compressed_data(*out, NULL, &st->compressed_bytes);
    }
done:
    if (blob) sk_free(&c->al, blob, blob_size);
    cx_free(c, errs, (size_t)4 * c->N * c->J, sizeof(double));
    ctx_free(c);
    return r;
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
        o.segment_len > 1024)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_clip_compress: option out of range");
    sk_compress_stats st;
    memset(&st, 0, sizeof st);
    double rates[4] = {o.sample_rate, 0, 0, 0};
    int nr = 1;
    if (o.sample_rate == 0.0) {
        double own = own_rate(clip);
        if (own > 0.0 && own <= 1e4) rates[0] = own, rates[1] = 2 * own, rates[2] = 4 * own, nr = 3;
        else rates[0] = 30.0, rates[1] = 60.0, rates[2] = 120.0, rates[3] = 240.0, nr = 4;
    }
    sk_result r = SK_ERR_UNSUPPORTED;
    for (int i = 0; i < nr; i++) {
        r = compress_at(clip, s, &o, rates[i], simd, alloc, out, &st, err);
        if (r != SK_ERR_UNSUPPORTED) break;
    }
    if (r == SK_OK && stats) *stats = st;
    return r;
}

sk_result sk_clip_resample(const sk_clip *clip, const sk_skeleton *s, double fps, const sk_allocator *alloc,
                           sk_clip **out, sk_error *err) {
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
