/* Terrains as triangles: height fields from vertical ray casts (with vertical
 * walls at steps) and meshes from an asset's triangles (see skr.h). */
#include "skr_internal.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tri_buf {
    float *v;
    size_t count, cap; /* vertices */
    bool oom;
} tri_buf;

static void put(tri_buf *b, const float p[3], const float n[3]) {
    if (b->oom) return;
    if (b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        float *v = realloc(b->v, cap * 6 * sizeof(float));
        if (!v) {
            b->oom = true;
            return;
        }
        b->v = v, b->cap = cap;
    }
    float *d = b->v + b->count * 6;
    memcpy(d, p, 12), memcpy(d + 3, n, 12);
    b->count++;
}

static sk_result finish(tri_buf *b, skr_terrain **out, sk_error *err) {
    if (b->oom) {
        free(b->v);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "terrain: out of memory");
    }
    skr_terrain *t = calloc(1, sizeof *t);
    if (!t) {
        free(b->v);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "terrain: out of memory");
    }
    t->vertices = b->v;
    t->triangle_count = (uint32_t)(b->count / 3);
    glGenVertexArrays(1, &t->vao);
    glGenBuffers(1, &t->vbo);
    glBindVertexArray(t->vao);
    glBindBuffer(GL_ARRAY_BUFFER, t->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((b->count ? b->count : 1) * 6 * sizeof(float)), b->v, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 24, NULL);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 24, (void *)12);
    glBindVertexArray(0);
    *out = t;
    return SK_OK;
}

void skr_terrain_destroy(skr_terrain *t) {
    if (!t) return;
    glDeleteVertexArrays(1, &t->vao);
    glDeleteBuffers(1, &t->vbo);
    free(t->vertices);
    free(t);
}

const float *skr_terrain_vertices(const skr_terrain *t, uint32_t *triangle_count) {
    if (triangle_count) *triangle_count = t->triangle_count;
    return t->vertices;
}

/* ---- height fields ---- */
typedef struct sample {
    float p[3], n[3];
    bool ok;
} sample;

typedef struct hf {
    const sk_terrain *t;
    float y_top, drop;
} hf;

static sample cast(const hf *h, float x, float z) {
    sample s = {{x, NAN, z}, {0, 1, 0}, false};
    sk_terrain_hit hit;
    if (sk_terrain_height(h->t, x, z, h->y_top, h->drop, &hit)) {
        s.p[1] = hit.point.y;
        s.n[0] = hit.normal.x, s.n[1] = hit.normal.y, s.n[2] = hit.normal.z;
        if (s.n[1] < 0) s.n[0] = -s.n[0], s.n[1] = -s.n[1], s.n[2] = -s.n[2];
        s.ok = true;
    }
    return s;
}

/* A step between samples a and b (adjacent grid points)? Bisects towards the
 * larger height change down to 1 mm; a step when that last millimetre holds
 * more than half of the change between a and b (a slope spreads its change
 * evenly: 1 mm of a 4 cm edge holds 1/40 of it). Fills the two sides of the
 * step: sa on a's side, sb on b's, at the same x/z (the step's position). */
static bool find_step_ordered(const hf *h, const sample *a, const sample *b, float spacing, sample *sa, sample *sb);
static bool find_step(const hf *h, const sample *a, const sample *b, float spacing, sample *sa, sample *sb) {
    /* the same answer for an edge shared by two cells, whichever way round they walk it */
    bool swap = a->p[0] > b->p[0] || (a->p[0] == b->p[0] && a->p[2] > b->p[2]);
    return swap ? find_step_ordered(h, b, a, spacing, sb, sa) : find_step_ordered(h, a, b, spacing, sa, sb);
}

static bool find_step_ordered(const hf *h, const sample *a, const sample *b, float spacing, sample *sa, sample *sb) {
    float dy = fabsf(a->p[1] - b->p[1]);
    if (!(dy > fmaxf(0.25f * spacing, 0.002f))) return false; /* steeper than 14 degrees and 2 mm, or no step */
    sample lo = *a, hi = *b;
    for (int it = 0; it < 40; it++) {
        float dx = hi.p[0] - lo.p[0], dz = hi.p[2] - lo.p[2];
        if (dx * dx + dz * dz <= 1e-6f) break;
        sample m = cast(h, 0.5f * (lo.p[0] + hi.p[0]), 0.5f * (lo.p[2] + hi.p[2]));
        if (!m.ok) return false;
        if (fabsf(m.p[1] - lo.p[1]) >= fabsf(hi.p[1] - m.p[1])) hi = m;
        else lo = m;
    }
    if (!(fabsf(hi.p[1] - lo.p[1]) > 0.5f * dy)) return false;
    float x = 0.5f * (lo.p[0] + hi.p[0]), z = 0.5f * (lo.p[2] + hi.p[2]);
    *sa = lo, *sb = hi;
    sa->p[0] = sb->p[0] = x;
    sa->p[2] = sb->p[2] = z;
    return true;
}

static void tri(tri_buf *b, const sample *p, const sample *q, const sample *r) {
    put(b, p->p, p->n), put(b, q->p, q->n), put(b, r->p, r->n);
}

static void wall(tri_buf *b, const sample *a0, const sample *a1, const sample *b0, const sample *b1) {
    /* a0/a1: the step's two sides at its first point, b0/b1 at its second */
    float ex = b0->p[0] - a0->p[0], ez = b0->p[2] - a0->p[2];
    float l = sqrtf(ex * ex + ez * ez);
    if (!(l > 0)) return;
    float n[3] = {ez / l, 0, -ex / l};
    put(b, a0->p, n), put(b, b0->p, n), put(b, b1->p, n);
    put(b, a0->p, n), put(b, b1->p, n), put(b, a1->p, n);
}

sk_result skr_terrain_create_heightfield(const sk_terrain *terrain, const skr_terrain_area *area, skr_terrain **out,
                                         sk_error *err) {
    *out = NULL;
    float w = area->max_x - area->min_x, d = area->max_z - area->min_z;
    if (!terrain || !(w > 0) || !(d > 0) || !(area->y_top > area->y_bottom) || !isfinite(w) || !isfinite(d))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "terrain: empty or invalid area");
    float sp = area->spacing > 0 ? area->spacing : fmaxf(w, d) / 240.0f;
    sp = fminf(fmaxf(sp, 0.01f), 0.1f);
    uint32_t nx = (uint32_t)ceilf(w / sp) + 1, nz = (uint32_t)ceilf(d / sp) + 1;
    if ((uint64_t)nx * nz > 4000000u)
        return sk_error_set(err, SK_ERR_LIMIT, "terrain: %u x %u samples: too many (use a larger spacing)", nx, nz);
    hf h = {terrain, area->y_top, area->y_top - area->y_bottom};
    sample *g = malloc((size_t)nx * nz * sizeof *g);
    if (!g) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "terrain: out of memory");
    for (uint32_t j = 0; j < nz; j++)
        for (uint32_t i = 0; i < nx; i++)
            g[(size_t)j * nx + i] = cast(&h, fminf(area->min_x + i * sp, area->max_x), fminf(area->min_z + j * sp, area->max_z));
    tri_buf b = {0};
    for (uint32_t j = 0; j + 1 < nz; j++)
        for (uint32_t i = 0; i + 1 < nx; i++) {
            /* corners in order around the cell */
            const sample *c[4] = {&g[(size_t)j * nx + i], &g[(size_t)j * nx + i + 1], &g[(size_t)(j + 1) * nx + i + 1],
                                  &g[(size_t)(j + 1) * nx + i]};
            if (!c[0]->ok || !c[1]->ok || !c[2]->ok || !c[3]->ok) continue;
            sample sa[4], sb[4];
            bool step[4];
            int nsteps = 0;
            for (int e = 0; e < 4; e++) nsteps += step[e] = find_step(&h, c[e], c[(e + 1) & 3], sp, &sa[e], &sb[e]);
            /* one group of corners on each side of a line through two step edges */
            int e0 = -1, e1 = -1;
            if (nsteps == 2)
                for (int e = 0; e < 4; e++)
                    if (step[e]) {
                        if (e0 < 0) e0 = e;
                        else e1 = e;
                    }
            if (e0 < 0) {
                tri(&b, c[0], c[1], c[2]);
                tri(&b, c[0], c[2], c[3]);
                continue;
            }
            /* side A: corners e0+1 .. e1 (walking round), entered after edge e0's step, left at edge e1's;
             * side B: corners e1+1 .. e0. Edge e runs from corner e to e+1: sb[e] is on corner e+1's side. */
            sample polyA[6], polyB[6];
            int na = 0, nb = 0;
            polyA[na++] = sb[e0];
            for (int k = e0 + 1; k <= e1; k++) polyA[na++] = *c[k];
            polyA[na++] = sa[e1];
            polyB[nb++] = sb[e1];
            for (int k = e1 + 1; k <= e0 + 4; k++) polyB[nb++] = *c[k & 3];
            polyB[nb++] = sa[e0];
            for (int k = 1; k + 1 < na; k++) tri(&b, &polyA[0], &polyA[k], &polyA[k + 1]);
            for (int k = 1; k + 1 < nb; k++) tri(&b, &polyB[0], &polyB[k], &polyB[k + 1]);
            /* the wall: at edge e0 side A is sb[e0], side B sa[e0]; at e1 side A is sa[e1], side B sb[e1] */
            wall(&b, &sb[e0], &sa[e0], &sa[e1], &sb[e1]);
        }
    free(g);
    return finish(&b, out, err);
}

/* ---- meshes ---- */
sk_result skr_terrain_create_mesh(const sk_asset *asset, skr_terrain **out, sk_error *err) {
    *out = NULL;
    skr_model *m = NULL;
    sk_result r = skr_model_create(asset, SKR_MODEL_NO_TEXTURES, &m, err);
    if (r != SK_OK) return r;
    const sk_skeleton *s = asset->skeleton;
    sk_transform *local = calloc(s->joint_count ? s->joint_count : 1, sizeof *local);
    float *weights = calloc(s->weight_total + 1, sizeof *weights);
    sk_mat4 *world = calloc(s->joint_count ? s->joint_count : 1, sizeof *world);
    sk_mat4 *pal = calloc(m->palette_size ? m->palette_size : 1, sizeof *pal);
    float *pos = calloc((size_t)m->vertex_count * 6 + 1, sizeof *pos);
    tri_buf b = {0};
    if (!local || !weights || !world || !pal || !pos) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "terrain: out of memory");
        goto done;
    }
    sk_pose_rest(s, SK_POSE_OF(s, local, weights), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, s->joint_count, NULL);
    skr_model_palette(m, world, pal);
    if ((r = skr_model_skin_cpu(m, pal, weights, SK_SKIN_LBS, SK_SIMD_AUTO, pos, err)) != SK_OK) goto done;
    for (uint32_t i = 0; i < m->item_count; i++) {
        const skr_item *it = &m->items[i];
        const sk_primitive *p = it->prim;
        for (uint32_t k = 0; k + 2 < it->index_count; k += 3) {
            const float *v[3];
            for (int c = 0; c < 3; c++) {
                uint32_t x = p->indices ? p->indices[k + c] : k + c;
                v[c] = pos + (size_t)(it->cpu_first + x) * 6;
            }
            float e1[3], e2[3], n[3];
            for (int c = 0; c < 3; c++) e1[c] = v[1][c] - v[0][c], e2[c] = v[2][c] - v[0][c];
            n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
            float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (!(l > 0)) continue;
            for (int c = 0; c < 3; c++) n[c] /= l;
            if (n[1] < 0) n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
            put(&b, v[0], n), put(&b, v[1], n), put(&b, v[2], n);
        }
    }
    r = finish(&b, out, err);
    b.v = NULL;
done:
    free(b.v);
    free(local), free(weights), free(world), free(pal), free(pos);
    skr_model_destroy(m);
    return r;
}
