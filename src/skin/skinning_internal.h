/* Private: the prepared mesh layout shared by the skinning kernels. */
#ifndef SKELANIM_SKIN_INTERNAL_H
#define SKELANIM_SKIN_INTERNAL_H

#include "core/math_inline.h"
#include "skelanim/skin/skinning.h"

#include <math.h>

#define SK_SKIN_MAX_INFLUENCES 8u

typedef struct sk_skin_target {
    float *positions; /* 3 per vertex, or NULL */
    float *normals;
    float *tangents;  /* xyz deltas */
} sk_skin_target;

/* Vertices grouped by how many non-zero influences they have after the
 * weights are renormalised: 1, 2, 3, 4, and 5-8 (8 slots; the kernel reads
 * the vertex's own count and skips the padding). A group packs its vertices'
 * influences at `slots` per vertex in ascending vertex order, with the
 * vertex of each entry (index), so a kernel for one influence count never
 * touches a zero weight. Outputs land at vertex - first: the caller sees the
 * original vertex order (eight entries that are eight consecutive vertices
 * are written with wide stores). */
#define SK_SKIN_GROUPS 5u
#define SK_SKIN_JOINT8_MAX 8192u
typedef struct sk_skin_group {
    uint32_t slots;          /* 1, 2, 3, 4 or 8 */
    uint32_t count;          /* vertices in the group */
    uint32_t *index;         /* vertex of each entry (ascending) */
    bool contiguous;         /* index[i] == index[0] + i: one run of vertices */
    uint16_t *joints;        /* slots per vertex, sorted by weight (descending) */
    uint16_t *joint8;        /* the same joints times 8 (the AVX2 / AVX-512 LBS kernels address the
                              * palette as base + 8 * joint8 bytes: one addressing mode, no shift
                              * and add per influence); NULL when the palette exceeds
                              * SK_SKIN_JOINT8_MAX joints (those kernels then run the SSE2 one) */
    float *weights;          /* slots per vertex, renormalised; group 1: exactly 1 */
} sk_skin_group;

/* Blocks of up to eight consecutive vertices whose influences, together,
 * name at most SK_SKIN_BLOCK_JOINTS joints (the block's union). The AVX2
 * LBS kernel (positions, normals, tangents) skins a block in structure-of-arrays
 * form: each of the blended matrices' twelve elements is one register of
 * eight lanes, sum over the union of (the lanes' weights of that joint) x
 * (the element, broadcast). A mesh whose neighbouring vertices share their
 * joints (most of them: a limb's vertices follow its bone) costs per vertex
 * a fraction of a matrix per union joint instead of a matrix per influence
 * and the shuffles of pairing vertices. Vertices in no block (their union
 * would be too large) are in the rest groups. Built by
 * sk_skinned_mesh_create; skinning.c says when a job uses them. */
#define SK_SKIN_BLOCK_JOINTS 8u
typedef struct sk_skin_block {
    uint32_t first;                          /* first vertex */
    uint32_t weights;                        /* offset in sk_skinned_mesh.block_weights: union x 8 floats */
    uint8_t count;                           /* vertices, 1..8 */
    uint8_t joints;                          /* joints in the union, 1..SK_SKIN_BLOCK_JOINTS */
    uint16_t joint8[SK_SKIN_BLOCK_JOINTS];   /* the union's joints times 8 (see sk_skin_group.joint8) */
    uint8_t ref[8];                          /* per lane, the union index of its vertex's first influence
                                              * (the DQS antipodal reference); 0 past count */
} sk_skin_block;

struct sk_skinned_mesh {
    sk_allocator alloc;
    sk_skin_group groups[SK_SKIN_GROUPS];
    /* Blocks (ascending first vertex), their lane weights (per block, per union joint, eight lanes:
     * the lane's vertex's weight of that joint or 0; lanes past count 0), the rest groups (the
     * vertices in no block, grouped as groups are) and the joints the blocks name (ascending,
     * distinct). block_count 0 (and everything NULL) when no block formed or the palette exceeds
     * SK_SKIN_JOINT8_MAX joints. */
    uint32_t block_count, block_weight_count, block_joint_count;
    sk_skin_block *blocks;
    float *block_weights;
    uint16_t *block_joints;
    sk_skin_group rest[SK_SKIN_GROUPS];
    uint32_t vertex_count;
    uint32_t influences;     /* slots per vertex: 1, 4 or 8 */
    uint32_t palette_size;   /* max joint + 1 */
    float *pos;              /* 3 per vertex, one float of padding after the last (16-byte loads) */
    float *nrm;              /* 3 per vertex and the padding (or NULL) */
    float *tan;              /* 4 per vertex: x, y, z, w (or NULL) */
    uint8_t *count;          /* non-zero influences per vertex (>= 1) */
    uint16_t *joints;        /* influences per vertex, sorted by weight (descending) */
    float *weights;          /* renormalised, same order; zeros after count */
    uint32_t target_count;
    sk_skin_target *targets;
};

/* Per-call state handed to a kernel. */
typedef struct sk_skin_ctx {
    const sk_skinned_mesh *mesh;
    const float *palette;         /* 16 floats per joint (LBS) */
    const float *dq;              /* 8 floats per joint: real xyzw, dual xyzw (DQS) */
    /* Morph: active targets (weight != 0) */
    uint32_t morph_count;
    const uint32_t *morph_index;
    const float *morph_weight;
    float *op, *on, *ot;
    uint32_t ps, ns, ts;          /* strides in floats */
    uint32_t first;               /* vertex first lands at output index 0 */
} sk_skin_ctx;

/* Base vertex data plus active morph deltas into p/n/t (4 floats each).
 * Returns pointers to use (either the mesh streams or the buffers); a
 * position or normal has x, y, z (a 16-byte load of it reads one float
 * more, which every kernel ignores); a tangent x, y, z, w. */
static inline void sk_skin_fetch(const sk_skin_ctx *c, uint32_t v, const float **p, const float **n,
                                 const float **t, float bp[4], float bn[4], float bt[4]) {
    const sk_skinned_mesh *m = c->mesh;
    *p = m->pos + 3 * (size_t)v;
    *n = m->nrm ? m->nrm + 3 * (size_t)v : NULL;
    *t = m->tan ? m->tan + 4 * (size_t)v : NULL;
    if (!c->morph_count) return;
    for (int k = 0; k < 3; k++) {
        bp[k] = (*p)[k];
        bn[k] = *n ? (*n)[k] : 0.0f;
    }
    bp[3] = 1.0f, bn[3] = 0.0f;
    for (int k = 0; k < 4; k++) bt[k] = *t ? (*t)[k] : 0.0f;
    for (uint32_t i = 0; i < c->morph_count; i++) {
        const sk_skin_target *tg = &m->targets[c->morph_index[i]];
        float w = c->morph_weight[i];
        size_t o = 3 * (size_t)v;
        if (tg->positions)
            for (int k = 0; k < 3; k++) bp[k] += w * tg->positions[o + k];
        if (tg->normals && *n)
            for (int k = 0; k < 3; k++) bn[k] += w * tg->normals[o + k];
        if (tg->tangents && *t)
            for (int k = 0; k < 3; k++) bt[k] += w * tg->tangents[o + k];
    }
    *p = bp;
    if (*n) *n = bn;
    if (*t) *t = bt;
}

/* A squared length in this range normalises directly in float; outside it
 * (overflow to infinity for lengths above ~1.8e19, or too small to trust) the
 * slow path scales by the largest component first. */
static inline bool sk_skin_norm_direct(float l2) { return l2 > 1e-30f && l2 <= 3.0e38f; }

/* Unit length for every nonzero finite vector, however long or short (a
 * morphed normal of length 1e30 still gets its direction); a zero or
 * non-finite vector is left as it is. Every kernel (scalar and SIMD) ends in
 * this for the lanes sk_skin_norm_direct rejects, so they agree. */
static inline void sk_skin_normalize3_slow(float *v) {
    float m = fmaxf(fabsf(v[0]), fmaxf(fabsf(v[1]), fabsf(v[2])));
    if (!(m > 0.0f) || !isfinite(m)) return;
    float x = v[0] / m, y = v[1] / m, z = v[2] / m; /* largest is +-1: no overflow, no underflow to 0 */
    float s = 1.0f / sqrtf(x * x + y * y + z * z);
    v[0] = x * s, v[1] = y * s, v[2] = z * s;
}

static inline void sk_skin_normalize3(float *v) {
    float l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (sk_skin_norm_direct(l2)) {
        float s = 1.0f / sqrtf(l2);
        v[0] *= s, v[1] *= s, v[2] *= s;
    } else {
        sk_skin_normalize3_slow(v);
    }
}

/* v' = v + 2 r.xyz x (r.xyz x v + r.w v) */
static inline void sk_skin_quat_rotate(const float r[4], const float v[3], float out[3]) {
    float tx = r[1] * v[2] - r[2] * v[1] + r[3] * v[0];
    float ty = r[2] * v[0] - r[0] * v[2] + r[3] * v[1];
    float tz = r[0] * v[1] - r[1] * v[0] + r[3] * v[2];
    out[0] = v[0] + 2.0f * (r[1] * tz - r[2] * ty);
    out[1] = v[1] + 2.0f * (r[2] * tx - r[0] * tz);
    out[2] = v[2] + 2.0f * (r[0] * ty - r[1] * tx);
}

/* DQS: normalises the blended dual quaternion b (real xyzw, dual xyzw) and
 * writes output i from source vertex p/n/t. */
static inline void sk_skin_dq_finish(const sk_skin_ctx *c, uint32_t i, const float b[8], const float *p,
                                     const float *n, const float *t) {
    float len = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    float inv = len > 0 ? 1.0f / len : 0.0f;
    float r[4] = {b[0] * inv, b[1] * inv, b[2] * inv, b[3] * inv};
    float d[4] = {b[4] * inv, b[5] * inv, b[6] * inv, b[7] * inv};
    if (c->op) {
        /* translation = 2 (r.w d.v - d.w r.v + r.v x d.v) */
        float tr0 = 2.0f * (r[3] * d[0] - d[3] * r[0] + r[1] * d[2] - r[2] * d[1]);
        float tr1 = 2.0f * (r[3] * d[1] - d[3] * r[1] + r[2] * d[0] - r[0] * d[2]);
        float tr2 = 2.0f * (r[3] * d[2] - d[3] * r[2] + r[0] * d[1] - r[1] * d[0]);
        float rp[3];
        sk_skin_quat_rotate(r, p, rp);
        float *o = c->op + (size_t)i * c->ps;
        o[0] = rp[0] + tr0, o[1] = rp[1] + tr1, o[2] = rp[2] + tr2;
    }
    if (c->on) {
        float *o = c->on + (size_t)i * c->ns;
        sk_skin_quat_rotate(r, n, o);
        sk_skin_normalize3(o);
    }
    if (c->ot) {
        float *o = c->ot + (size_t)i * c->ts, tmp[3];
        sk_skin_quat_rotate(r, t, tmp);
        sk_skin_normalize3(tmp);
        o[0] = tmp[0], o[1] = tmp[1], o[2] = tmp[2], o[3] = t[3];
    }
}

/* The scalar reference walks the vertices in their original order (per
 * vertex count, joints and weights); output i is vertex first + i. */
void sk_skin_lbs_scalar(const sk_skin_ctx *c, uint32_t first, uint32_t count);
void sk_skin_dqs_scalar(const sk_skin_ctx *c, uint32_t first, uint32_t count);
/* The SIMD kernels skin entries [e0, e1) of group g (sk_skin_run finds the
 * entries of the vertex range by binary search in g->index); vertex v goes
 * to output v - c->first. */
typedef void (*sk_skin_group_kernel)(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1);
/* First entry of group g whose vertex is >= v. */
static inline uint32_t sk_skin_group_lower_bound(const sk_skin_group *g, uint32_t v) {
    uint32_t lo = 0, hi = g->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->index[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(SK_NO_SIMD)
#define SK_SKIN_X86 1
/* Blocks [b0, b1) of the mesh, AVX2 + FMA: positions, normals and
 * tangents as asked (c->op, c->on, c->ot), the active morph targets (at
 * most 64: c->morph_*) added first, only the vertices in [lo, hi)
 * written. The caller has checked sk_skin_block_inputs_finite_avx2 (a zero
 * weight times an infinite element is NaN). */
void sk_skin_lbs_blocks_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi);
/* The same for dual quaternion skinning (DQS, as sk_skin_dqs_avx2). */
void sk_skin_dqs_blocks_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi);
/* Either method, any outputs and morph targets (skinning_blocks_full.c). */
void sk_skin_blocks_full_avx2(const sk_skin_ctx *c, uint32_t b0, uint32_t b1, uint32_t lo, uint32_t hi, bool dq);
/* Whether the floats the block kernels read of every joint the blocks name
 * are finite, AVX2: of the palette (dq false: x, y, z of each column) or of
 * the dual quaternions (dq true: all eight). */
bool sk_skin_block_inputs_finite_avx2(const sk_skinned_mesh *m, const float *data, bool dq);
void sk_skin_lbs_sse2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1);
void sk_skin_dqs_sse2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1);
void sk_skin_lbs_avx2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1);
void sk_skin_dqs_avx2(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1);
void sk_skin_lbs_avx512(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1);
#endif

#endif
