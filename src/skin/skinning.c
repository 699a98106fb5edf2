/* CPU skinning: mesh preparation, dual quaternion conversion, the scalar
 * reference kernels and the per-call kernel choice. SIMD kernels: skin_simd.c. */
#include "skin/skinning_internal.h"

#include <math.h>
#include <stdio.h>

/* ---- Dual quaternions -------------------------------------------------------- */

sk_result sk_skin_dual_quats(const sk_mat4 *palette, uint32_t count, sk_dual_quat *out, sk_error *err) {
    if ((!palette || !out) && count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_dual_quats: NULL palette or output");
    for (uint32_t i = 0; i < count; i++) {
        const float *m = palette[i].m;
        float c[3][3];
        float len[3];
        for (int k = 0; k < 3; k++) {
            c[k][0] = m[k * 4 + 0];
            c[k][1] = m[k * 4 + 1];
            c[k][2] = m[k * 4 + 2];
            len[k] = sqrtf(c[k][0] * c[k][0] + c[k][1] * c[k][1] + c[k][2] * c[k][2]);
        }
        bool finite = true;
        for (int k = 0; k < 16; k++) finite = finite && sk_isfinite_f(m[k]);
        if (!finite)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "palette[%u]: non-finite matrix", i);
        const float tol = 1e-3f;
        if (fabsf(len[0] - 1) > tol || fabsf(len[1] - 1) > tol || fabsf(len[2] - 1) > tol)
            return sk_error_set(err, SK_ERR_UNSUPPORTED,
                                "palette[%u] has scale (%.5g, %.5g, %.5g): dual quaternion skinning handles "
                                "rotation and translation only; use linear blend skinning for scaled joints",
                                i, (double)len[0], (double)len[1], (double)len[2]);
        for (int k = 0; k < 3; k++)
            for (int r = 0; r < 3; r++) c[k][r] /= len[k];
        float d01 = c[0][0] * c[1][0] + c[0][1] * c[1][1] + c[0][2] * c[1][2];
        float d02 = c[0][0] * c[2][0] + c[0][1] * c[2][1] + c[0][2] * c[2][2];
        float d12 = c[1][0] * c[2][0] + c[1][1] * c[2][1] + c[1][2] * c[2][2];
        float det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) -
                    c[1][0] * (c[0][1] * c[2][2] - c[0][2] * c[2][1]) +
                    c[2][0] * (c[0][1] * c[1][2] - c[0][2] * c[1][1]);
        if (fabsf(d01) > tol || fabsf(d02) > tol || fabsf(d12) > tol)
            return sk_error_set(err, SK_ERR_UNSUPPORTED,
                                "palette[%u] has shear: dual quaternion skinning needs rigid joints; use linear "
                                "blend skinning",
                                i);
        if (det < 0)
            return sk_error_set(err, SK_ERR_UNSUPPORTED,
                                "palette[%u] is a reflection (negative scale): dual quaternion skinning needs "
                                "rigid joints; use linear blend skinning",
                                i);
        double r[3][3]; /* r[col][row] */
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) r[k][j] = c[k][j];
        sk_quat q = skm_quat_from_rotation(r);
        float qx = q.x, qy = q.y, qz = q.z, qw = q.w;
        float tx = m[12], ty = m[13], tz = m[14];
        /* dual = 0.5 * (t, 0) * real */
        out[i].real = q;
        out[i].dual.x = 0.5f * (tx * qw + ty * qz - tz * qy);
        out[i].dual.y = 0.5f * (-tx * qz + ty * qw + tz * qx);
        out[i].dual.z = 0.5f * (tx * qy - ty * qx + tz * qw);
        out[i].dual.w = -0.5f * (tx * qx + ty * qy + tz * qz);
    }
    return SK_OK;
}

/* ---- Preparation ------------------------------------------------------------ */

static float *dup_floats(const sk_allocator *a, const float *src, size_t n) {
    if (!src) return NULL;
    float *d = sk_alloc(a, n * sizeof *d);
    if (d) memcpy(d, src, n * sizeof *d);
    return d;
}

static void free_groups(const sk_allocator *a, sk_skin_group *groups) {
    for (uint32_t g = 0; g < SK_SKIN_GROUPS; g++) {
        const sk_skin_group *gr = &groups[g];
        if (!gr->slots) continue; /* never filled */
        size_t c = gr->count ? gr->count : 1;
        sk_free(a, gr->index, c * sizeof(uint32_t));
        sk_free(a, gr->joints, c * gr->slots * sizeof(uint16_t));
        sk_free(a, gr->joint8, c * gr->slots * sizeof(uint16_t));
        sk_free(a, gr->weights, c * gr->slots * sizeof(float));
    }
}

void sk_skinned_mesh_destroy(sk_skinned_mesh *m) {
    if (!m) return;
    const sk_allocator *a = &m->alloc;
    size_t n = m->vertex_count;
    sk_free(a, m->pos, (n * 3 + 1) * sizeof(float));
    sk_free(a, m->nrm, (n * 3 + 1) * sizeof(float));
    sk_free(a, m->tan, n * 4 * sizeof(float));
    sk_free(a, m->count, n);
    sk_free(a, m->joints, n * m->influences * sizeof(uint16_t));
    sk_free(a, m->weights, n * m->influences * sizeof(float));
    free_groups(a, m->groups);
    free_groups(a, m->rest);
    sk_free(a, m->blocks, (size_t)m->block_count * sizeof *m->blocks);
    sk_free(a, m->block_weights, (size_t)m->block_weight_count * sizeof(float));
    sk_free(a, m->block_joints, (size_t)m->block_joint_count * sizeof(uint16_t));
    if (m->targets) {
        for (uint32_t t = 0; t < m->target_count; t++) {
            sk_free(a, m->targets[t].positions, n * 3 * sizeof(float));
            sk_free(a, m->targets[t].normals, n * 3 * sizeof(float));
            sk_free(a, m->targets[t].tangents, n * 3 * sizeof(float));
        }
        sk_free(a, m->targets, m->target_count * sizeof *m->targets);
    }
    sk_allocator copy = m->alloc;
    sk_free(&copy, m, sizeof *m);
}

/* Which group a vertex with cnt non-zero influences belongs to. */
static uint32_t group_of(uint32_t cnt) { return cnt <= 4 ? (cnt ? cnt - 1 : 0) : 4; }

/* Splits the prepared vertices into the influence groups (see
 * skinning_internal.h), each in ascending vertex order with the vertex of
 * each entry; skip (or NULL) marks vertices left out (those in blocks, for
 * the rest groups). */
static sk_result build_groups(sk_skinned_mesh *m, sk_skin_group *groups, const uint8_t *skip) {
    const sk_allocator *a = &m->alloc;
    static const uint32_t slots[SK_SKIN_GROUPS] = {1, 2, 3, 4, 8};
    uint32_t counts[SK_SKIN_GROUPS] = {0};
    for (uint32_t v = 0; v < m->vertex_count; v++)
        if (!skip || !skip[v]) counts[group_of(m->count[v])]++;
    bool oom = false;
    for (uint32_t g = 0; g < SK_SKIN_GROUPS; g++) {
        sk_skin_group *gr = &groups[g];
        gr->slots = slots[g];
        gr->count = counts[g];
        size_t c = counts[g] ? counts[g] : 1;
        gr->index = sk_alloc(a, c * sizeof(uint32_t));
        gr->joints = sk_alloc(a, c * gr->slots * sizeof(uint16_t));
        gr->weights = sk_alloc(a, c * gr->slots * sizeof(float));
        gr->joint8 = m->palette_size <= SK_SKIN_JOINT8_MAX ? sk_alloc(a, c * gr->slots * sizeof(uint16_t)) : NULL;
        oom = oom || !gr->index || !gr->joints || !gr->weights || (m->palette_size <= SK_SKIN_JOINT8_MAX && !gr->joint8);
    }
    if (oom) return SK_ERR_OUT_OF_MEMORY;
    uint32_t fill[SK_SKIN_GROUPS] = {0};
    const uint32_t k = m->influences;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        if (skip && skip[v]) continue;
        uint32_t cnt = m->count[v], g = group_of(cnt);
        sk_skin_group *gr = &groups[g];
        uint32_t i = fill[g]++;
        gr->index[i] = v;
        for (uint32_t q = 0; q < gr->slots; q++) {
            bool used = q < cnt;
            /* padding (5-8 group) repeats the vertex's first joint with weight 0: a joint it does not
             * use could hold an infinite element, and 0 times that is NaN */
            gr->joints[(size_t)i * gr->slots + q] = m->joints[(size_t)v * k + (used ? q : 0)];
            if (gr->joint8) gr->joint8[(size_t)i * gr->slots + q] = (uint16_t)(8u * gr->joints[(size_t)i * gr->slots + q]);
            gr->weights[(size_t)i * gr->slots + q] = used ? m->weights[(size_t)v * k + q] : 0.0f;
        }
    }
    for (uint32_t g = 0; g < SK_SKIN_GROUPS; g++) {
        sk_skin_group *gr = &groups[g];
        gr->contiguous = gr->count && gr->index[gr->count - 1] - gr->index[0] == gr->count - 1;
    }
    return SK_OK;
}

/* Costs that decide where blocks pay, in hundredths of a nanosecond on the
 * machine they were measured on (an AMD Zen 4 at the AVX2 level; see
 * docs/performance.md): a vertex in the groups' kernel by its influence
 * count (1, 2, 3, 4, 5-8), and a block: a base, plus per joint of its
 * union, plus when it has fewer than eight vertices (read and written
 * through a buffer). Only their ratios matter. */
static const uint32_t group_cost[SK_SKIN_GROUPS] = {235, 298, 353, 414, 640};
#define BLOCK_COST_BASE 740u
#define BLOCK_COST_JOINT 300u
#define BLOCK_COST_SHORT 200u

/* The block starting at vertex v (see sk_skin_block) that saves most over
 * the groups' kernel: of the runs of 1-8 vertices from v whose joints,
 * together, are at most SK_SKIN_BLOCK_JOINTS, the one whose vertices cost
 * most more in the groups than the block costs. Its union (in order of first
 * appearance) in uni, its joint count in *un. Returns its vertices, or 0
 * when no run from v saves anything. */
static uint32_t block_at(const sk_skinned_mesh *m, uint32_t v, uint16_t uni[SK_SKIN_BLOCK_JOINTS], uint32_t *un) {
    uint32_t u = 0, best = 0, best_u = 0;
    int64_t groups = 0, best_saving = 0;
    for (uint32_t t = 1; t <= 8 && v + t - 1 < m->vertex_count; t++) {
        const uint32_t w = v + t - 1, cnt = m->count[w];
        const uint16_t *jj = m->joints + (size_t)w * m->influences;
        uint16_t add[SK_SKIN_MAX_INFLUENCES];
        uint32_t na = 0;
        for (uint32_t q = 0; q < cnt; q++) {
            bool seen = false;
            for (uint32_t i = 0; i < u && !seen; i++) seen = uni[i] == jj[q];
            for (uint32_t i = 0; i < na && !seen; i++) seen = add[i] == jj[q];
            if (!seen) add[na++] = jj[q];
        }
        if (u + na > SK_SKIN_BLOCK_JOINTS) break;
        for (uint32_t i = 0; i < na; i++) uni[u++] = add[i];
        groups += group_cost[group_of(cnt)];
        int64_t block = BLOCK_COST_BASE + BLOCK_COST_JOINT * (int64_t)u + (t < 8 ? BLOCK_COST_SHORT : 0);
        if (groups - block > best_saving) best_saving = groups - block, best = t, best_u = u;
    }
    *un = best_u; /* the union of the best run is the first best_u joints of uni */
    return best;
}

/* The blocks, their lane weights, the joints they name and the rest groups.
 * From each vertex, the block that saves most (block_at); where none saves
 * anything, the vertex goes to the rest groups and the next one is tried. */
static sk_result build_blocks(sk_skinned_mesh *m) {
    const sk_allocator *a = &m->alloc;
    const uint32_t n = m->vertex_count;
#ifndef SK_SKIN_X86
    return SK_OK; /* only the x86-64 AVX2 kernel reads them */
#endif
    if (m->palette_size > SK_SKIN_JOINT8_MAX || n == 0) return SK_OK;
    uint16_t uni[SK_SKIN_BLOCK_JOINTS];
    uint32_t u, blocks = 0, weights = 0;
    for (uint32_t v = 0; v < n;) {
        uint32_t t = block_at(m, v, uni, &u);
        if (t) blocks++, weights += 8 * u, v += t;
        else v++;
    }
    if (!blocks) return SK_OK;
    uint8_t *in_block = sk_alloc(a, n);
    uint8_t *named = sk_alloc(a, m->palette_size);
    m->blocks = sk_alloc(a, (size_t)blocks * sizeof *m->blocks);
    m->block_weights = sk_alloc(a, (size_t)weights * sizeof(float));
    if (m->blocks) m->block_count = blocks;
    if (m->block_weights) m->block_weight_count = weights;
    bool oom = !in_block || !named || !m->blocks || !m->block_weights;
    uint32_t b = 0, wo = 0;
    for (uint32_t v = 0; v < n && !oom;) {
        uint32_t t = block_at(m, v, uni, &u);
        if (!t) {
            v++;
            continue;
        }
        sk_skin_block *bk = &m->blocks[b++];
        bk->first = v, bk->count = (uint8_t)t, bk->joints = (uint8_t)u, bk->weights = wo;
        for (uint32_t i = 0; i < u; i++) bk->joint8[i] = (uint16_t)(8u * uni[i]), named[uni[i]] = 1;
        float *W = m->block_weights + wo; /* zero-filled: lanes past t and joints a vertex lacks */
        for (uint32_t l = 0; l < t; l++) {
            const uint32_t w = v + l;
            in_block[w] = 1;
            for (uint32_t q = 0; q < m->count[w]; q++) {
                uint32_t i = 0;
                while (uni[i] != m->joints[(size_t)w * m->influences + q]) i++;
                W[8 * i + l] += m->weights[(size_t)w * m->influences + q];
                if (q == 0) bk->ref[l] = (uint8_t)i;
            }
        }
        wo += 8 * u;
        v += t;
    }
    uint32_t nj = 0;
    for (uint32_t j = 0; !oom && j < m->palette_size; j++) nj += named[j];
    if (!oom) {
        m->block_joints = sk_alloc(a, (size_t)nj * sizeof(uint16_t));
        oom = !m->block_joints;
        if (!oom) {
            m->block_joint_count = nj;
            nj = 0;
            for (uint32_t j = 0; j < m->palette_size; j++)
                if (named[j]) m->block_joints[nj++] = (uint16_t)j;
        }
    }
    if (!oom) oom = build_groups(m, m->rest, in_block) != SK_OK;
    sk_free(a, in_block, n);
    sk_free(a, named, m->palette_size);
    return oom ? SK_ERR_OUT_OF_MEMORY : SK_OK;
}

sk_result sk_skinned_mesh_create(const sk_primitive *prim, const sk_allocator *alloc, sk_skinned_mesh **out,
                                 sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skinned_mesh_create: out is NULL");
    *out = NULL;
    if (!prim || (!prim->positions && prim->vertex_count))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skinned_mesh_create: primitive has no positions");
    uint32_t k = prim->influence_count;
    if (k != 0 && k != 4 && k != 8)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_skinned_mesh_create: %u influences per vertex (4 or 8 supported)", k);
    if (k && (!prim->joints || !prim->weights))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skinned_mesh_create: influences without data");
    if (prim->target_count && !prim->targets)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skinned_mesh_create: targets missing");
    const sk_allocator *a = sk_allocator_or_default(alloc);
    size_t n = prim->vertex_count;
    if (n > (SIZE_MAX / 64)) return sk_error_set(err, SK_ERR_LIMIT, "sk_skinned_mesh_create: too many vertices");
    sk_skinned_mesh *m = sk_alloc(a, sizeof *m);
    if (!m) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_skinned_mesh_create: out of memory");
    m->alloc = *a;
    m->vertex_count = (uint32_t)n;
    m->influences = k ? k : 1;
    size_t nn = n ? n : 1;
    m->pos = sk_alloc(a, (nn * 3 + 1) * sizeof(float));
    m->count = sk_alloc(a, nn);
    m->joints = sk_alloc(a, nn * m->influences * sizeof(uint16_t));
    m->weights = sk_alloc(a, nn * m->influences * sizeof(float));
    if (prim->normals) m->nrm = sk_alloc(a, (nn * 3 + 1) * sizeof(float));
    if (prim->tangents) m->tan = sk_alloc(a, nn * 4 * sizeof(float));
    bool oom = !m->pos || !m->count || !m->joints || !m->weights || (prim->normals && !m->nrm) ||
               (prim->tangents && !m->tan);
    if (!oom && prim->target_count) {
        m->targets = sk_alloc(a, prim->target_count * sizeof *m->targets);
        oom = !m->targets;
        if (!oom) {
            m->target_count = prim->target_count;
            for (uint32_t t = 0; t < prim->target_count && !oom; t++) {
                const sk_morph_target *st = &prim->targets[t];
                sk_skin_target *dt = &m->targets[t];
                dt->positions = dup_floats(a, st->positions, n * 3);
                dt->normals = prim->normals ? dup_floats(a, st->normals, n * 3) : NULL;
                dt->tangents = prim->tangents ? dup_floats(a, st->tangents, n * 3) : NULL;
                oom = (st->positions && !dt->positions) || (prim->normals && st->normals && !dt->normals) ||
                      (prim->tangents && st->tangents && !dt->tangents);
            }
        }
    }
    if (oom) {
        m->vertex_count = (uint32_t)nn;
        sk_skinned_mesh_destroy(m);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_skinned_mesh_create: out of memory");
    }
    uint32_t max_joint = 0;
    for (size_t v = 0; v < n; v++) {
        for (int c = 0; c < 3; c++) m->pos[v * 3 + c] = prim->positions[v * 3 + c];
        if (m->nrm)
            for (int c = 0; c < 3; c++) m->nrm[v * 3 + c] = prim->normals[v * 3 + c];
        if (m->tan)
            for (int c = 0; c < 4; c++) m->tan[v * 4 + c] = prim->tangents[v * 4 + c];
        uint16_t *dj = m->joints + v * m->influences;
        float *dw = m->weights + v * m->influences;
        if (!k) {
            dj[0] = 0;
            dw[0] = 1.0f;
            m->count[v] = 1;
            continue;
        }
        /* Copy, drop non-positive / non-finite weights, sort descending (stable). */
        uint16_t jj[SK_SKIN_MAX_INFLUENCES];
        float ww[SK_SKIN_MAX_INFLUENCES];
        uint32_t cnt = 0;
        double sum = 0;
        for (uint32_t i = 0; i < k; i++) {
            float w = prim->weights[v * k + i];
            if (!(w > 0.0f) || !sk_isfinite_f(w)) continue;
            uint32_t pos = cnt;
            while (pos > 0 && ww[pos - 1] < w) {
                ww[pos] = ww[pos - 1];
                jj[pos] = jj[pos - 1];
                pos--;
            }
            ww[pos] = w;
            jj[pos] = prim->joints[v * k + i];
            cnt++;
            sum += w;
        }
        if (cnt == 0 || !(sum > 0)) {
            jj[0] = prim->joints[v * k]; /* three.js: an all-zero vertex becomes (1,0,0,0) */
            ww[0] = 1.0f;
            cnt = 1;
            sum = 1.0;
        }
        for (uint32_t i = 0; i < m->influences; i++) {
            dj[i] = i < cnt ? jj[i] : 0;
            dw[i] = i < cnt ? (float)(ww[i] / sum) : 0.0f;
            if (i < cnt && dj[i] > max_joint) max_joint = dj[i];
        }
        m->count[v] = (uint8_t)cnt;
    }
    m->palette_size = max_joint + 1;
    if (build_groups(m, m->groups, NULL) != SK_OK || build_blocks(m) != SK_OK) {
        sk_skinned_mesh_destroy(m);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_skinned_mesh_create: out of memory");
    }
    *out = m;
    return SK_OK;
}

uint32_t sk_skinned_mesh_vertex_count(const sk_skinned_mesh *m) { return m ? m->vertex_count : 0; }
uint32_t sk_skinned_mesh_influence_count(const sk_skinned_mesh *m) { return m ? m->influences : 0; }
uint32_t sk_skinned_mesh_palette_size(const sk_skinned_mesh *m) { return m ? m->palette_size : 0; }
uint32_t sk_skinned_mesh_target_count(const sk_skinned_mesh *m) { return m ? m->target_count : 0; }
bool sk_skinned_mesh_has_normals(const sk_skinned_mesh *m) { return m && m->nrm; }
bool sk_skinned_mesh_has_tangents(const sk_skinned_mesh *m) { return m && m->tan; }

uint32_t sk_skinned_mesh_vertex_influences(const sk_skinned_mesh *m, uint32_t v, uint16_t joints[8],
                                           float weights[8]) {
    if (!m || v >= m->vertex_count) return 0;
    for (uint32_t i = 0; i < 8; i++) {
        joints[i] = i < m->influences ? m->joints[(size_t)v * m->influences + i] : 0;
        weights[i] = i < m->influences ? m->weights[(size_t)v * m->influences + i] : 0.0f;
    }
    return m->count[v];
}

/* ---- Scalar reference kernels ---------------------------------------------- */

static void normalize3(float *v) { sk_skin_normalize3(v); }

void sk_skin_lbs_scalar(const sk_skin_ctx *c, uint32_t first, uint32_t count) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = m->influences;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = first + i;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        float M[16] = {0};
        const uint16_t *jj = m->joints + (size_t)v * k;
        const float *ww = m->weights + (size_t)v * k;
        for (uint32_t q = 0; q < m->count[v]; q++) {
            const float *P = c->palette + 16 * (size_t)jj[q];
            float w = ww[q];
            for (int e = 0; e < 16; e++) M[e] += w * P[e];
        }
        if (c->op) {
            float *o = c->op + (size_t)i * c->ps;
            for (int r = 0; r < 3; r++) o[r] = M[r] * p[0] + M[4 + r] * p[1] + M[8 + r] * p[2] + M[12 + r];
        }
        if (c->on) {
            float *o = c->on + (size_t)i * c->ns;
            for (int r = 0; r < 3; r++) o[r] = M[r] * n[0] + M[4 + r] * n[1] + M[8 + r] * n[2];
            normalize3(o);
        }
        if (c->ot) {
            float *o = c->ot + (size_t)i * c->ts;
            float tmp[3];
            for (int r = 0; r < 3; r++) tmp[r] = M[r] * t[0] + M[4 + r] * t[1] + M[8 + r] * t[2];
            normalize3(tmp);
            o[0] = tmp[0], o[1] = tmp[1], o[2] = tmp[2], o[3] = t[3];
        }
    }
}

void sk_skin_dqs_scalar(const sk_skin_ctx *c, uint32_t first, uint32_t count) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = m->influences;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v = first + i;
        float bp[4], bn[4], bt[4];
        const float *p, *n, *t;
        sk_skin_fetch(c, v, &p, &n, &t, bp, bn, bt);
        const uint16_t *jj = m->joints + (size_t)v * k;
        const float *ww = m->weights + (size_t)v * k;
        const float *q0 = c->dq + 8 * (size_t)jj[0];
        float b[8] = {0};
        for (uint32_t q = 0; q < m->count[v]; q++) {
            const float *D = c->dq + 8 * (size_t)jj[q];
            float d = q0[0] * D[0] + q0[1] * D[1] + q0[2] * D[2] + q0[3] * D[3];
            float w = d < 0 ? -ww[q] : ww[q]; /* antipodal fix: same hemisphere as the first */
            for (int e = 0; e < 8; e++) b[e] += w * D[e];
        }
        sk_skin_dq_finish(c, i, b, p, n, t);
    }
}

#ifdef SK_SKIN_X86
/* First block at or after index from whose first vertex (span: its end,
 * first + count) is past vertex x; block_count when none. */
static uint32_t blocks_after(const sk_skinned_mesh *m, uint32_t from, uint32_t x, bool span) {
    uint32_t l = from, h = m->block_count;
    while (l < h) {
        uint32_t mid = l + (h - l) / 2;
        if (m->blocks[mid].first + (span ? m->blocks[mid].count : 0u) <= x) l = mid + 1;
        else h = mid;
    }
    return l;
}
#endif

/* ---- Entry point ------------------------------------------------------------- */

sk_result sk_skin_run(const sk_skin_job *job, sk_error *err) {
    if (!job || !job->mesh) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_run: no mesh");
    const sk_skinned_mesh *m = job->mesh;
    if (job->method != SK_SKIN_LBS && job->method != SK_SKIN_DQS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_run: unknown method %d", (int)job->method);
    if (job->method == SK_SKIN_LBS && !job->palette)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_run: linear blend skinning needs job.palette");
    if (job->method == SK_SKIN_DQS && !job->dual_quats)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_skin_run: dual quaternion skinning needs job.dual_quats (see sk_skin_dual_quats)");
    if (job->palette_count < m->palette_size)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_skin_run: palette has %u entries, the mesh uses joints up to %u", job->palette_count,
                            m->palette_size - 1);
    if (job->out_normals && !m->nrm)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_run: normals requested, the mesh has none");
    if (job->out_tangents && !m->tan)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_run: tangents requested, the mesh has none");
    if (job->first_vertex > m->vertex_count ||
        job->vertex_count > m->vertex_count - job->first_vertex)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_run: vertex range %u+%u past the mesh's %u vertices",
                            job->first_vertex, job->vertex_count, m->vertex_count);
    uint32_t count = job->vertex_count ? job->vertex_count : m->vertex_count - job->first_vertex;

    /* Active morph targets, in chunks so no allocation is needed. */
    enum { CHUNK = 64 };
    uint32_t idx[CHUNK];
    float wt[CHUNK];
    uint32_t active = 0;
    if (job->morph_weights)
        for (uint32_t t = 0; t < m->target_count; t++)
            if (job->morph_weights[t] != 0.0f) active++;

    sk_skin_ctx c = {0};
    c.mesh = m;
    c.palette = job->palette ? job->palette->m : NULL;
    c.dq = job->dual_quats ? &job->dual_quats->real.x : NULL;
    c.op = job->out_positions;
    c.on = job->out_normals;
    c.ot = job->out_tangents;
    c.ps = job->position_stride ? job->position_stride : 3;
    c.ns = job->normal_stride ? job->normal_stride : 3;
    c.ts = job->tangent_stride ? job->tangent_stride : 4;
    if (c.ps < 3 || c.ns < 3 || c.ts < 4)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skin_run: output stride smaller than the element");

    c.first = job->first_vertex;
    sk_simd simd = sk_simd_resolve(job->simd);
    sk_skin_group_kernel gk = NULL; /* NULL: the scalar reference */
#ifdef SK_SKIN_X86
    if (simd == SK_SIMD_AVX512) gk = job->method == SK_SKIN_LBS ? sk_skin_lbs_avx512 : sk_skin_dqs_avx2;
    else if (simd == SK_SIMD_AVX2) gk = job->method == SK_SKIN_LBS ? sk_skin_lbs_avx2 : sk_skin_dqs_avx2;
    else if (simd == SK_SIMD_SSE2) gk = job->method == SK_SKIN_LBS ? sk_skin_lbs_sse2 : sk_skin_dqs_sse2;
#else
    (void)simd;
#endif
    if (active <= CHUNK) {
        if (active) {
            uint32_t a = 0;
            for (uint32_t t = 0; t < m->target_count; t++)
                if (job->morph_weights[t] != 0.0f) idx[a] = t, wt[a] = job->morph_weights[t], a++;
            c.morph_count = a;
            c.morph_index = idx;
            c.morph_weight = wt;
        }
        if (!gk) {
            (job->method == SK_SKIN_LBS ? sk_skin_lbs_scalar : sk_skin_dqs_scalar)(&c, job->first_vertex, count);
            return SK_OK;
        }
        /* Each influence group by its kernel, over its entries inside the range. */
        const uint32_t lo = job->first_vertex, hi = job->first_vertex + count;
        const sk_skin_group *groups = m->groups;
#ifdef SK_SKIN_X86
        /* At AVX2 and above: the blocks, then the rest groups. The palette's elements (the dual
         * quaternions) the blocks read must be finite: a lane's zero weight times an infinite
         * element would be NaN (checked per call: two loads and a few operations per joint the blocks name). */
        const bool lbs = job->method == SK_SKIN_LBS;
        if ((simd == SK_SIMD_AVX2 || simd == SK_SIMD_AVX512) && m->block_count && count &&
            sk_skin_block_inputs_finite_avx2(m, lbs ? c.palette : c.dq, !lbs)) {
            /* the blocks that reach into [lo, hi): from the first ending after lo to the last starting before hi */
            uint32_t b0 = blocks_after(m, 0, lo, true), b1 = blocks_after(m, b0, hi - 1, false);
            if (b0 < b1) (lbs ? sk_skin_lbs_blocks_avx2 : sk_skin_dqs_blocks_avx2)(&c, b0, b1, lo, hi);
            groups = m->rest;
        }
#endif
        for (uint32_t g = 0; g < SK_SKIN_GROUPS; g++) {
            const sk_skin_group *gr = &groups[g];
            uint32_t e0 = lo ? sk_skin_group_lower_bound(gr, lo) : 0;
            uint32_t e1 = hi >= m->vertex_count ? gr->count : sk_skin_group_lower_bound(gr, hi);
            if (e0 < e1) gk(&c, gr, e0, e1);
        }
        return SK_OK;
    }
    /* Many active targets: the scalar kernel in vertex chunks is not an option
     * (deltas must sum before skinning), so morph per vertex with all targets. */
    for (uint32_t v0 = 0; v0 < count; v0++) {
        float bp[4], bn[4], bt[4];
        uint32_t v = job->first_vertex + v0;
        for (int e = 0; e < 3; e++) {
            bp[e] = m->pos[3 * (size_t)v + e];
            bn[e] = m->nrm ? m->nrm[3 * (size_t)v + e] : 0;
        }
        bp[3] = 1.0f, bn[3] = 0.0f;
        for (int e = 0; e < 4; e++) bt[e] = m->tan ? m->tan[4 * (size_t)v + e] : 0;
        for (uint32_t t = 0; t < m->target_count; t++) {
            float w = job->morph_weights[t];
            if (w == 0.0f) continue;
            const sk_skin_target *tg = &m->targets[t];
            for (int e = 0; e < 3; e++) {
                if (tg->positions) bp[e] += w * tg->positions[3 * (size_t)v + e];
                if (tg->normals && m->nrm) bn[e] += w * tg->normals[3 * (size_t)v + e];
                if (tg->tangents && m->tan) bt[e] += w * tg->tangents[3 * (size_t)v + e];
            }
        }
        /* One-vertex mesh view over the morphed data. */
        sk_skinned_mesh one = *m;
        one.vertex_count = 1;
        one.pos = bp;
        one.nrm = m->nrm ? bn : NULL;
        one.tan = m->tan ? bt : NULL;
        one.count = m->count + v;
        one.joints = m->joints + (size_t)v * m->influences;
        one.weights = m->weights + (size_t)v * m->influences;
        one.target_count = 0;
        sk_skin_ctx c1 = c;
        c1.mesh = &one;
        c1.morph_count = 0;
        c1.first = 0;
        c1.op = c.op ? c.op + (size_t)v0 * c.ps : NULL;
        c1.on = c.on ? c.on + (size_t)v0 * c.ns : NULL;
        c1.ot = c.ot ? c.ot + (size_t)v0 * c.ts : NULL;
        if (!gk) {
            (job->method == SK_SKIN_LBS ? sk_skin_lbs_scalar : sk_skin_dqs_scalar)(&c1, 0, 1);
            continue;
        }
        /* The vertex as a one-entry group of its influence count. */
        uint32_t cnt = m->count[v], slots = m->groups[group_of(cnt)].slots;
        uint16_t gj[SK_SKIN_MAX_INFLUENCES] = {0};
        float gw[SK_SKIN_MAX_INFLUENCES] = {0};
        for (uint32_t q = 0; q < cnt; q++) gj[q] = one.joints[q], gw[q] = one.weights[q];
        uint32_t zero = 0;
        sk_skin_group g1 = {.slots = slots, .count = 1, .index = &zero, .joints = gj, .weights = gw};
        gk(&c1, &g1, 0, 1);
    }
    return SK_OK;
}
