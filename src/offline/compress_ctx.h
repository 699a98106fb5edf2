/* Private to the compressor (compress.c, compress_search.c,
 * compress_output.c): its working state and the helpers its files share.
 * Included after the files' FP_CONTRACT pragma (its own below). Not
 * installed. */
#ifndef SKELANIM_OFFLINE_COMPRESS_CTX_H
#define SKELANIM_OFFLINE_COMPRESS_CTX_H

#include "core/clip_internal.h"
#include "core/math_inline.h"
#include "offline/compress_internal.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF /* the FMA copies of the search must round as the plain ones (GCC: off in C11 mode) */
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(SK_NO_SIMD)
#define SK_CS_HAVE_WIDE 1 /* the AVX2 kernels (compress_search.c) */
#endif

typedef struct ctrack {
    uint32_t joint;
    uint8_t path, anim;
    uint8_t step;        /* a STEP track whose keys differ: kept as its keys (blob version 5), not animated */
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
    uint32_t K;          /* step tracks (ctrack.step) */
    double *kt;          /* nkt: the input's key times inside (0, dur) that are not frame times, ascending (the check samples them) */
    uint32_t nkt;
    size_t kt_cap;       /* kt's allocated entries */
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

static inline void *cx_alloc(ctx *c, size_t n, size_t elem, bool *ok) {
    size_t b;
    if (!sk_size_mul(n ? n : 1, elem, &b)) { *ok = false; return NULL; }
    void *p = sk_alloc(&c->al, b);
    if (!p) *ok = false;
    return p;
}

/* The same, not zero-filled: for buffers written in full before they are read. */
static inline void *cx_alloc_raw(ctx *c, size_t n, size_t elem, bool *ok) {
    size_t b;
    if (!sk_size_mul(n ? n : 1, elem, &b)) { *ok = false; return NULL; }
    void *p = sk_realloc_raw(&c->al, NULL, 0, b);
    if (!p) *ok = false;
    return p;
}

static inline void cx_free(ctx *c, void *p, size_t n, size_t elem) {
    if (p) sk_free(&c->al, p, (n ? n : 1) * elem);
}

/* Animated track a's raw value at frame k. */
static inline const float *aval(const ctx *c, uint32_t a, uint32_t k) { return &c->tv[((size_t)c->anim[a] * c->N + k) * 4]; }

/* Normalised n in a segment range: u in [0, 1]. */
static inline double seg_unit(double n, uint8_t smin, uint8_t sext) {
    double s0 = smin / 255.0, se = sext / 255.0;
    double u = se > 0.0 ? (n - s0) / se : 0.0;
    if (u < 0.0) u = 0.0;
    if (u > 1.0) u = 1.0;
    return u;
}

/* Quantised value of u in [0, 1] at a bit rate. */
static inline uint32_t quantise_u(double u, uint32_t bits) {
    if (!bits) return 0;
    double mq = (double)((1u << bits) - 1u);
    return (uint32_t)floor(u * mq + 0.5);
}

/* Quantised value of normalised n in a segment range at a bit rate. */
static inline uint32_t quantise(double n, uint8_t smin, uint8_t sext, uint32_t bits) {
    return bits ? quantise_u(seg_unit(n, smin, sext), bits) : 0;
}

/* The three stored components of track a at frame k in segment seg,
 * normalised in the clip range. */
static inline void stored(const ctx *c, uint32_t seg, uint32_t a, uint32_t k, double *n) {
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

static inline double *soa_joint(const ctx *c, double *base, uint32_t j) { return base + (size_t)j * 12 * c->EP; }

/* Lane e of the field rows q from transform x. */
static inline void fields_put(const ctx *c, double *q, uint32_t e, const sk_transform *x) {
    size_t ep = c->EP;
    q[e] = x->r.x, q[ep + e] = x->r.y, q[2 * ep + e] = x->r.z, q[3 * ep + e] = x->r.w;
    q[4 * ep + e] = x->s.x, q[5 * ep + e] = x->s.y, q[6 * ep + e] = x->s.z;
    q[7 * ep + e] = x->t.x, q[8 * ep + e] = x->t.y, q[9 * ep + e] = x->t.z;
}

/* Defined in compress_search.c (the per-joint kernels, the raw clip's values
 * and poses, the search of a segment), compress.c (sk_cs_p99) and
 * compress_output.c (sk_cs_output); described there. */
double sk_cs_joint_err(const double *restrict Lc, const double *restrict P, const double *restrict R, double *restrict O,
                       double *restrict ev, uint32_t n, size_t ep, double shell);
#ifdef SK_CS_HAVE_WIDE
double sk_cs_joint_err_avx2(const double *restrict Lc, const double *restrict P, const double *restrict R, double *restrict O,
                            double *restrict ev, uint32_t n, size_t ep, double shell);
#endif
void sk_cs_lanes_to_m34(ctx *c, double *q, double *o);
sk_result sk_cs_sample_raw(ctx *c, sk_error *err);
sk_result sk_cs_raw_pose(const ctx *c, uint32_t k, bool half, sk_transform *out, sk_error *err);
sk_result sk_cs_search_segment(ctx *c, uint32_t seg, sk_error *err);
double sk_cs_p99(double *v, size_t n);
sk_result sk_cs_output(ctx *c, double upm, sk_clip **out, sk_compress_stats *st, sk_error *err);

#endif
