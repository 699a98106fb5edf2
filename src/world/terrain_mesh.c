/* Terrain: triangle meshes (include/skelanim/world/terrain.h,
 * sk_terrain_mesh_*): Moller-Trumbore ("Fast, minimum storage ray/triangle
 * intersection", 1997) in double, two-sided, over a uniform grid in x/z
 * walked with Amanatides & Woo's traversal ("A fast voxel traversal
 * algorithm for ray tracing", 1987); built from raw triangles or from an
 * asset's meshes in its rest pose. */
#include "skelanim/world/terrain.h"

#include "core/internal.h"
#include "core/math_inline.h"
#include "terrain_internal.h"

#include <float.h>
#include <math.h>

/* ---- triangle meshes ------------------------------------------------------- */

struct sk_terrain_mesh {
    sk_allocator alloc;
    uint32_t tri_count, degenerate;
    uint32_t tri_cap;        /* triangles allocated in tris */
    float *tris;             /* tri_count * 9 (tri_cap * 9 allocated) */
    double bmin[3], bmax[3];
    double pad[3];           /* the bounds' slack per axis: 1e-7 (1 + |bmin| + |bmax|) */
    uint32_t nx, nz;
    double cx, cz;           /* cell size */
    uint32_t *cell_start;    /* nx * nz + 1 */
    uint32_t *cell_tris;     /* references */
    float *tri_box;          /* 4 per triangle: x0, -x1, z0, -z1 of its bounds padded outward (vertical rays' first test) */
    float *tri_n;            /* 3 per triangle: its unit normal (tri_normal), the sign of e1 x e2 */
    float *cell_y;           /* 2 per cell: min, max */
    uint64_t refs;
    size_t bytes;
};

/* Moller-Trumbore, two-sided; t in [0, tmax]. The barycentric tests run on
 * numerators scaled by |det| so a miss costs no division. */
static bool tri_hit(const float *v, const double o[3], const double d[3], double tmax, double *t_out) {
    double e1[3] = {(double)v[3] - v[0], (double)v[4] - v[1], (double)v[5] - v[2]};
    double e2[3] = {(double)v[6] - v[0], (double)v[7] - v[1], (double)v[8] - v[2]};
    double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (det == 0.0) return false;
    double sg = det < 0.0 ? -1.0 : 1.0, adet = det * sg;
    double s[3] = {o[0] - v[0], o[1] - v[1], o[2] - v[2]};
    double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * sg;
    const double be = 1e-12 * adet; /* barycentric slack: no crack between neighbours */
    if (u < -be || u > adet + be) return false;
    double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    double w = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * sg;
    if (w < -be || u + w > adet + be) return false;
    double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
    if (!(t >= 0.0 && t <= tmax)) return false;
    *t_out = t;
    return true;
}

/* A triangle's normal, e1 x e2 in double: the one function every path
 * takes it from (the hits' normals and the stored unit normals agree to the
 * bit). */
static void tri_normal(const float *v, double n[3]) {
    double e1[3] = {(double)v[3] - v[0], (double)v[4] - v[1], (double)v[5] - v[2]};
    double e2[3] = {(double)v[6] - v[0], (double)v[7] - v[1], (double)v[8] - v[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

static bool mesh_finish(const sk_terrain_mesh *m, int32_t best, double t, sk_vec3 o, sk_vec3 d, sk_terrain_hit *out) {
    if (best < 0) return false;
    double n[3];
    tri_normal(m->tris + (size_t)best * 9, n);
    return make_hit(o, d, t, n[0], n[1], n[2], out);
}

/* mesh_finish for a vertical ray (d.x = d.z = 0) from the stored unit
 * normal: the same hit to the bit. make_hit turns the normal against d when
 * n . d = n.y d.y > 0, and the stored n.y has the sign of the double's
 * wherever it is not 0 (then, and where nothing was stored, the long way). */
static bool mesh_finish_vertical(const sk_terrain_mesh *m, int32_t best, double t, sk_vec3 o, sk_vec3 d,
                                 sk_terrain_hit *out) {
    if (best < 0) return false;
    const float *n = m->tri_n + (size_t)best * 3;
    if (!(n[1] != 0.0f)) return mesh_finish(m, best, t, o, d, out);
    float sg = (double)n[1] * d.y > 0.0 ? -1.0f : 1.0f;
    sk_terrain_hit h;
    h.point = sk_vec3_make((float)(o.x + t * d.x), (float)(o.y + t * d.y), (float)(o.z + t * d.z));
    h.normal = sk_vec3_make(sg * n[0], sg * n[1], sg * n[2]);
    h.distance = (float)t;
    if (!skm_vec3_finite(h.point) || !sk_isfinite_f(h.distance)) return false;
    *out = h;
    return true;
}

static bool ray_mesh_brute(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    const sk_terrain_mesh *m = user;
    double od[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    double best_t = max_distance, t;
    int32_t best = -1;
    for (uint32_t i = 0; i < m->tri_count; i++)
        if (tri_hit(m->tris + (size_t)i * 9, od, dd, best_t, &t)) {
            best_t = t;
            best = (int32_t)i;
        }
    return mesh_finish(m, best, best_t, o, d, out);
}

/* (fx, fz) inside a triangle's stored bounds (x0, -x1, z0, -z1): x0 <= fx,
 * -x1 <= -fx (fx <= x1), the same for z; one compare of four lanes where
 * SSE2 is there. */
static inline bool box_holds(const float *bx, float fx, float fz) {
#if defined(SKM_C4_SSE)
    __m128 q = _mm_setr_ps(fx, -fx, fz, -fz);
    return _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(bx), q)) == 0xF;
#else
    return bx[0] <= fx && bx[1] <= -fx && bx[2] <= fz && bx[3] <= -fz;
#endif
}

/* floor((x - lo) / size) clamped to [0, n - 1] (NaN: 0): the clamps first,
 * then a truncation, which is the floor of what is left (positive). */
static uint32_t cell_of(double x, double lo, double size, uint32_t n) {
    double f = (x - lo) / size;
    if (!(f > 0.0)) return 0;
    if (f >= (double)n - 1.0) return n - 1;
    return (uint32_t)f;
}

/* The grid cell a vertical ray at (x, z) reads; false outside the mesh's
 * bounds (with their slack). sk_terrain_height_bound takes its cell from
 * here too, so the bound is over the triangles the ray tests. */
static bool vertical_cell(const sk_terrain_mesh *m, double x, double z, uint32_t *c) {
    if (x < m->bmin[0] - m->pad[0] || x > m->bmax[0] + m->pad[0] || z < m->bmin[2] - m->pad[2] ||
        z > m->bmax[2] + m->pad[2])
        return false;
    *c = cell_of(z, m->bmin[2], m->cz, m->nz) * m->nx + cell_of(x, m->bmin[0], m->cx, m->nx);
    return true;
}

/* A vertical ray (what foot placement casts): one grid cell, no traversal;
 * each triangle's bounds in x and z (tri_box: 16 bytes, where its vertices
 * are 36), then a cheap 2D inside test of (x, z)
 * (looser than tri_hit's) leave only the triangles under the point for the
 * exact test. */
static bool ray_mesh_vertical(const sk_terrain_mesh *m, sk_vec3 o, sk_vec3 d, float max_distance,
                              sk_terrain_hit *out) {
    double x = o.x, z = o.z;
    double od[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    uint32_t c;
    if (!vertical_cell(m, x, z, &c)) return false;
    uint32_t a = m->cell_start[c], b = m->cell_start[c + 1];
    double best_t = max_distance;
    int32_t best = -1;
    const float fx = o.x, fz = o.z;
    for (uint32_t k = a; k < b; k++) {
        uint32_t tri = m->cell_tris[k];
        if (!box_holds(m->tri_box + (size_t)tri * 4, fx, fz)) continue; /* outside its bounds */
        const float *v = m->tris + (size_t)tri * 9;
        double ax = v[0], az = v[2];
        double e1x = (double)v[3] - ax, e1z = (double)v[5] - az, e2x = (double)v[6] - ax, e2z = (double)v[8] - az;
        double det = e1x * e2z - e2x * e1z;
        if (det == 0.0) continue; /* edge-on: a vertical ray grazes it (tri_hit: no hit either) */
        double sg = det < 0.0 ? -1.0 : 1.0, adet = det * sg, be = 1e-6 * adet;
        double sx = x - ax, sz = z - az;
        double u = (sx * e2z - e2x * sz) * sg, w = (e1x * sz - sx * e1z) * sg;
        if (u < -be || w < -be || u + w > adet + be) continue; /* clearly outside (looser than tri_hit) */
        double t;
        if (tri_hit(v, od, dd, best_t, &t)) { /* the exact test and distance, as every other path */
            best_t = t;
            best = (int32_t)tri;
        }
    }
    return mesh_finish_vertical(m, best, best_t, o, d, out);
}

static bool ray_mesh_grid(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out);

/* The cell ray_mesh_vertical looks in, its highest vertex: a hit's height
 * is the triangle's plane at (x, z), inside the triangle, so at most that
 * vertex's, and the point is rounded once from double to float (the margin,
 * far above one float step at the heights a foot stands). */
bool sk_terrain_height_bound(const sk_terrain *terrain, float x, float z, float *y_max) {
    if (!terrain || terrain->raycast != ray_mesh_grid || !terrain->user || !y_max) return false;
    if (!sk_isfinite_f(x) || !sk_isfinite_f(z)) return false;
    const sk_terrain_mesh *m = terrain->user;
    uint32_t c;
    if (m->tri_count == 0 || !vertical_cell(m, x, z, &c) || m->cell_start[c] == m->cell_start[c + 1]) {
        *y_max = -INFINITY;
        return true;
    }
    float top = m->cell_y[2 * c + 1];
    *y_max = top + 1e-5f * (1.0f + fabsf(top));
    return true;
}

static bool ray_mesh_grid(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    const sk_terrain_mesh *m = user;
    if (m->tri_count == 0) return false;
    if (d.x == 0.0f && d.z == 0.0f && d.y != 0.0f) return ray_mesh_vertical(m, o, d, max_distance, out);
    double od[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    /* Clip to the bounds (slabs). */
    double t0 = 0.0, t1 = max_distance;
    for (int a = 0; a < 3; a++) {
        double lo = m->bmin[a] - m->pad[a], hi = m->bmax[a] + m->pad[a];
        if (dd[a] == 0.0) {
            if (od[a] < lo || od[a] > hi) return false;
        } else {
            double ta = (lo - od[a]) / dd[a], tb = (hi - od[a]) / dd[a];
            t0 = skm_fmax(t0, skm_fmin(ta, tb));
            t1 = skm_fmin(t1, skm_fmax(ta, tb));
        }
    }
    if (!(t0 <= t1)) return false;
    uint32_t ix = cell_of(od[0] + t0 * dd[0], m->bmin[0], m->cx, m->nx);
    uint32_t iz = cell_of(od[2] + t0 * dd[2], m->bmin[2], m->cz, m->nz);
    int sx = dd[0] > 0.0 ? 1 : (dd[0] < 0.0 ? -1 : 0), sz = dd[2] > 0.0 ? 1 : (dd[2] < 0.0 ? -1 : 0);
    double tmx = INFINITY, tmz = INFINITY, tdx = INFINITY, tdz = INFINITY;
    if (sx) {
        double edge = m->bmin[0] + (double)(ix + (sx > 0)) * m->cx;
        tmx = (edge - od[0]) / dd[0];
        tdx = m->cx / fabs(dd[0]);
    }
    if (sz) {
        double edge = m->bmin[2] + (double)(iz + (sz > 0)) * m->cz;
        tmz = (edge - od[2]) / dd[2];
        tdz = m->cz / fabs(dd[2]);
    }
    double best_t = t1, t_in = t0, t;
    int32_t best = -1;
    uint32_t guard = m->nx + m->nz + 4;
    while (guard--) {
        double t_out = skm_fmin(skm_fmin(tmx, tmz), t1);
        uint32_t c = iz * m->nx + ix;
        uint32_t a = m->cell_start[c], b = m->cell_start[c + 1];
        if (a != b) {
            double ya = od[1] + t_in * dd[1], yb = od[1] + t_out * dd[1];
            double ylo = skm_fmin(ya, yb), yhi = skm_fmax(ya, yb), pad = 1e-7 * (1.0 + fabs(ylo) + fabs(yhi));
            if (yhi + pad >= m->cell_y[2 * c] && ylo - pad <= m->cell_y[2 * c + 1])
                for (uint32_t k = a; k < b; k++) {
                    uint32_t tri = m->cell_tris[k];
                    if (tri_hit(m->tris + (size_t)tri * 9, od, dd, best_t, &t)) {
                        best_t = t;
                        best = (int32_t)tri;
                    }
                }
        }
        if ((best >= 0 && best_t <= t_out) || t_out >= t1) break;
        if (tmx < tmz) {
            if ((sx < 0 && ix == 0) || (sx > 0 && ix + 1 >= m->nx)) break;
            ix = (uint32_t)((int64_t)ix + sx);
            t_in = tmx;
            tmx += tdx;
        } else {
            if ((sz < 0 && iz == 0) || (sz > 0 && iz + 1 >= m->nz)) break;
            iz = (uint32_t)((int64_t)iz + sz);
            t_in = tmz;
            tmz += tdz;
        }
    }
    return mesh_finish(m, best, best_t, o, d, out);
}

static void *mesh_alloc(sk_terrain_mesh *m, size_t count, size_t elem) {
    size_t bytes;
    if (!sk_size_mul(count ? count : 1, elem, &bytes)) return NULL;
    void *p = sk_alloc(&m->alloc, bytes);
    if (p) m->bytes += bytes;
    return p;
}

void sk_terrain_mesh_destroy(sk_terrain_mesh *m) {
    if (!m) return;
    sk_allocator a = m->alloc;
    size_t ncells = (size_t)m->nx * m->nz;
    if (m->tris) sk_free(&a, m->tris, m->tri_cap ? (size_t)m->tri_cap * 9 * sizeof(float) : sizeof(float));
    if (m->cell_start) sk_free(&a, m->cell_start, (ncells + 1) * sizeof(uint32_t));
    if (m->cell_tris) sk_free(&a, m->cell_tris, (size_t)(m->refs ? m->refs : 1) * sizeof(uint32_t));
    if (m->tri_box) sk_free(&a, m->tri_box, (size_t)(m->tri_count ? m->tri_count : 1) * 4 * sizeof(float));
    if (m->tri_n) sk_free(&a, m->tri_n, (size_t)(m->tri_count ? m->tri_count : 1) * 3 * sizeof(float));
    if (m->cell_y) sk_free(&a, m->cell_y, (ncells ? ncells : 1) * 2 * sizeof(float));
    sk_free(&a, m, sizeof *m);
}

/* A triangle's bounds in x or z (lo, hi) for the vertical rays' first test,
 * moved outward by far more than the 2D test's slack (1e-6 of the
 * barycentric range) and the rounding to float: a point outside them is
 * outside every test that follows (ray_mesh_vertical). */
static float box_lo(float lo, float extent) {
    double pad = 1e-5 * ((double)extent + 1.0 + fabs((double)lo));
    return (float)((double)lo - pad);
}
static float box_hi(float hi, float extent) {
    double pad = 1e-5 * ((double)extent + 1.0 + fabs((double)hi));
    return (float)((double)hi + pad);
}

/* m->tris holds m->tri_count triangles: drops degenerate ones, builds the grid. */
static sk_result mesh_build(sk_terrain_mesh *m, const sk_terrain_mesh_options *opt, sk_error *err) {
    /* drop zero-area triangles in place */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->tri_count; i++) {
        const float *v = m->tris + (size_t)i * 9;
        double e1[3] = {(double)v[3] - v[0], (double)v[4] - v[1], (double)v[5] - v[2]};
        double e2[3] = {(double)v[6] - v[0], (double)v[7] - v[1], (double)v[8] - v[2]};
        double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double cl = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        double el = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2] + e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
        if (!(cl > 1e-12 * el) || !(cl > 0.0)) {
            m->degenerate++;
            continue;
        }
        if (kept != i) memmove(m->tris + (size_t)kept * 9, v, 9 * sizeof(float));
        kept++;
    }
    /* (the array keeps its allocated size, tri_cap) */
    m->tri_count = kept;
    for (int a = 0; a < 3; a++) {
        m->bmin[a] = kept ? INFINITY : 0.0;
        m->bmax[a] = kept ? -INFINITY : 0.0;
    }
    for (uint32_t i = 0; i < kept; i++)
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++) {
                double x = m->tris[(size_t)i * 9 + k * 3 + a];
                m->bmin[a] = skm_fmin(m->bmin[a], x);
                m->bmax[a] = skm_fmax(m->bmax[a], x);
            }
    for (int a = 0; a < 3; a++) m->pad[a] = 1e-7 * (1.0 + fabs(m->bmin[a]) + fabs(m->bmax[a]));
    float tpc = opt && opt->triangles_per_cell > 0.0f && sk_isfinite_f(opt->triangles_per_cell) ? opt->triangles_per_cell
                                                                                                  : 2.0f;
    uint32_t max_cells = opt && opt->max_cells ? opt->max_cells : (1u << 22);
    double target = skm_fmax(1.0, skm_fmin((double)max_cells, ceil((double)kept / tpc)));
    double ex = m->bmax[0] - m->bmin[0], ez = m->bmax[2] - m->bmin[2];
    double big = skm_fmax(ex, ez);
    uint32_t nx = 1, nz = 1;
    if (big > 0.0) {
        double cell = ex * ez > 1e-12 * big * big ? sqrt(ex * ez / target) : big / target;
        nx = (uint32_t)skm_fmax(1.0, skm_fmin(target, ceil(ex / cell)));
        nz = (uint32_t)skm_fmax(1.0, skm_fmin(target, ceil(ez / cell)));
        while ((double)nx * nz > (double)max_cells) {
            if (nx >= nz) nx = (nx + 1) / 2;
            else nz = (nz + 1) / 2;
        }
    }
    m->nx = nx;
    m->nz = nz;
    m->cx = ex > 0.0 ? ex / nx : 1.0;
    m->cz = ez > 0.0 ? ez / nz : 1.0;
    size_t ncells = (size_t)nx * nz;
    m->cell_start = mesh_alloc(m, ncells + 1, sizeof(uint32_t));
    m->cell_y = mesh_alloc(m, ncells, 2 * sizeof(float));
    if (!m->cell_start || !m->cell_y) goto oom;
    for (size_t c = 0; c < ncells; c++) {
        m->cell_y[2 * c] = FLT_MAX;
        m->cell_y[2 * c + 1] = -FLT_MAX;
    }
    /* count, then fill (cell_start[c + 1] counts cell c first) */
    uint64_t refs = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < kept; i++) {
            const float *v = m->tris + (size_t)i * 9;
            float x0 = skm_fminf(v[0], skm_fminf(v[3], v[6])), x1 = skm_fmaxf(v[0], skm_fmaxf(v[3], v[6]));
            float z0 = skm_fminf(v[2], skm_fminf(v[5], v[8])), z1 = skm_fmaxf(v[2], skm_fmaxf(v[5], v[8]));
            float y0 = skm_fminf(v[1], skm_fminf(v[4], v[7])), y1 = skm_fmaxf(v[1], skm_fmaxf(v[4], v[7]));
            uint32_t i0 = cell_of(x0, m->bmin[0], m->cx, nx), i1 = cell_of(x1, m->bmin[0], m->cx, nx);
            uint32_t k0 = cell_of(z0, m->bmin[2], m->cz, nz), k1 = cell_of(z1, m->bmin[2], m->cz, nz);
            if (pass == 1) {
                float *bx = m->tri_box + (size_t)i * 4, ext = x1 - x0 + z1 - z0;
                bx[0] = box_lo(x0, ext), bx[1] = -box_hi(x1, ext), bx[2] = box_lo(z0, ext), bx[3] = -box_hi(z1, ext);
                double n[3];
                tri_normal(v, n);
                double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]); /* as make_hit */
                float *tn = m->tri_n + (size_t)i * 3;
                if (nl > 0.0) tn[0] = (float)(n[0] / nl), tn[1] = (float)(n[1] / nl), tn[2] = (float)(n[2] / nl);
                else tn[0] = tn[1] = tn[2] = 0.0f; /* (dropped as degenerate above; the long way if not) */
            }
            for (uint32_t kz = k0; kz <= k1; kz++)
                for (uint32_t kx = i0; kx <= i1; kx++) {
                    size_t c = (size_t)kz * nx + kx;
                    if (pass == 0) {
                        refs++;
                        if (refs > UINT32_MAX) {
                            sk_error_set(err, SK_ERR_LIMIT, "sk_terrain_mesh: more than 2^32 triangle references in the grid");
                            return SK_ERR_LIMIT;
                        }
                        m->cell_start[c + 1]++;
                        m->cell_y[2 * c] = skm_fminf(m->cell_y[2 * c], y0);
                        m->cell_y[2 * c + 1] = skm_fmaxf(m->cell_y[2 * c + 1], y1);
                    } else {
                        m->cell_tris[m->cell_start[c]++] = i;
                    }
                }
        }
        if (pass == 0) {
            for (size_t c = 0; c < ncells; c++) m->cell_start[c + 1] += m->cell_start[c];
            m->refs = refs;
            m->cell_tris = mesh_alloc(m, (size_t)refs, sizeof(uint32_t));
            m->tri_box = mesh_alloc(m, kept ? kept : 1, 4 * sizeof(float));
            m->tri_n = mesh_alloc(m, kept ? kept : 1, 3 * sizeof(float));
            if (!m->cell_tris || !m->tri_box || !m->tri_n) goto oom;
        }
    }
    /* the fill pass moved each start to its cell's end: shift back */
    for (size_t c = ncells; c > 0; c--) m->cell_start[c] = m->cell_start[c - 1];
    m->cell_start[0] = 0;
    return SK_OK;
oom:
    return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_terrain_mesh: out of memory for the grid");
}

static sk_result mesh_new(const sk_allocator *alloc, uint32_t tri_count, sk_terrain_mesh **out, sk_error *err) {
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_terrain_mesh *m = sk_alloc(a, sizeof *m);
    if (!m) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_terrain_mesh: out of memory");
    m->alloc = *a;
    m->bytes = sizeof *m;
    m->tri_cap = tri_count;
    m->tri_count = tri_count;
    size_t n;
    if (!sk_size_mul(tri_count, 9, &n) || !(m->tris = mesh_alloc(m, n, sizeof(float)))) {
        sk_terrain_mesh_destroy(m);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_terrain_mesh: out of memory for %u triangles", tri_count);
    }
    *out = m;
    return SK_OK;
}

static sk_result mesh_done(sk_terrain_mesh *m, const sk_terrain_mesh_options *opt, sk_terrain_mesh **out,
                           sk_error *err) {
    sk_result r = mesh_build(m, opt, err);
    if (r != SK_OK) {
        sk_terrain_mesh_destroy(m);
        return r;
    }
    *out = m;
    return SK_OK;
}

sk_result sk_terrain_mesh_create(const float *positions, uint32_t vertex_count, const uint32_t *indices,
                                 uint32_t triangle_count, const sk_terrain_mesh_options *opt,
                                 const sk_allocator *alloc, sk_terrain_mesh **out, sk_error *err) {
    if (!out) return bad(err, "sk_terrain_mesh_create: out is required");
    *out = NULL;
    if (triangle_count && !positions) return bad(err, "sk_terrain_mesh_create: positions are required");
    if (!indices && (uint64_t)triangle_count * 3 > vertex_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_terrain_mesh_create: %u triangles need %llu vertices without indices, %u given",
                            triangle_count, (unsigned long long)triangle_count * 3, vertex_count);
    for (uint32_t i = 0; i < triangle_count; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = indices ? indices[(size_t)i * 3 + k] : i * 3 + (uint32_t)k;
            if (v >= vertex_count)
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_terrain_mesh_create: triangle %u: index %u >= vertex count %u",
                                    i, v, vertex_count);
            const float *p = positions + (size_t)v * 3;
            if (!sk_isfinite_f(p[0]) || !sk_isfinite_f(p[1]) || !sk_isfinite_f(p[2]))
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_terrain_mesh_create: triangle %u: vertex %u is not finite",
                                    i, v);
        }
    sk_terrain_mesh *m;
    sk_result r = mesh_new(alloc, triangle_count, &m, err);
    if (r != SK_OK) return r;
    for (uint32_t i = 0; i < triangle_count; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = indices ? indices[(size_t)i * 3 + k] : i * 3 + (uint32_t)k;
            memcpy(m->tris + (size_t)i * 9 + k * 3, positions + (size_t)v * 3, 3 * sizeof(float));
        }
    return mesh_done(m, opt, out, err);
}

/* Joints of the default scene (every joint when there is none). */
static bool in_scene(const sk_asset *asset, uint32_t j) {
    if (asset->default_scene < 0 || (uint32_t)asset->default_scene >= asset->scene_count) return true;
    const sk_scene *sc = &asset->scenes[asset->default_scene];
    for (uint32_t r = 0; r < sc->root_count; r++) {
        uint32_t root = sc->roots[r];
        if (j >= root && j < sk_skeleton_subtree_end(asset->skeleton, root)) return true;
    }
    return false;
}

sk_result sk_terrain_mesh_from_asset(const sk_asset *asset, const sk_terrain_mesh_options *opt,
                                     const sk_allocator *alloc, sk_terrain_mesh **out,
                                     uint32_t *skipped_primitives, sk_error *err) {
    if (!out) return bad(err, "sk_terrain_mesh_from_asset: out is required");
    *out = NULL;
    if (skipped_primitives) *skipped_primitives = 0;
    if (!asset || !asset->skeleton) return bad(err, "sk_terrain_mesh_from_asset: no asset");
    sk_result r = sk_asset_validate(asset, err);
    if (r != SK_OK) return r;
    const sk_skeleton *skel = asset->skeleton;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    uint32_t n = skel->joint_count;
    /* count the triangles */
    uint64_t tris = 0;
    uint32_t skipped = 0, max_skin = 0;
    for (uint32_t j = 0; j < n; j++) {
        int32_t mi = asset->joint_mesh[j];
        if (mi < 0 || !in_scene(asset, j)) continue;
        const sk_mesh *mesh = &asset->meshes[mi];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const sk_primitive *prim = &mesh->primitives[p];
            if (prim->mode != 4 || prim->missing_data) {
                skipped++;
                continue;
            }
            tris += (prim->indices ? prim->index_count : prim->vertex_count) / 3;
        }
        int32_t si = asset->joint_skin[j];
        if (si >= 0 && asset->skins[si].joint_count > max_skin) max_skin = asset->skins[si].joint_count;
    }
    if (skipped_primitives) *skipped_primitives = skipped;
    if (tris > UINT32_MAX / 9)
        return sk_error_set(err, SK_ERR_LIMIT, "sk_terrain_mesh_from_asset: %llu triangles", (unsigned long long)tris);
    sk_pose pose = {0};
    sk_mat4 *model = NULL, *palette = NULL;
    size_t model_bytes = (size_t)(n ? n : 1) * sizeof(sk_mat4), pal_bytes = (size_t)(max_skin ? max_skin : 1) * sizeof(sk_mat4);
    sk_terrain_mesh *m = NULL;
    r = sk_pose_alloc(skel, a, &pose, err);
    if (r != SK_OK) return r;
    model = sk_alloc(a, model_bytes);
    palette = sk_alloc(a, pal_bytes);
    if (!model || !palette) {
        r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_terrain_mesh_from_asset: out of memory");
        goto done;
    }
    if ((r = sk_pose_rest(skel, &pose, err)) != SK_OK) goto done;
    if ((r = sk_local_to_model(skel, &pose, NULL, model, n, err)) != SK_OK) goto done;
    if ((r = mesh_new(a, (uint32_t)tris, &m, err)) != SK_OK) goto done;
    size_t t = 0;
    for (uint32_t j = 0; j < n; j++) {
        int32_t mi = asset->joint_mesh[j];
        if (mi < 0 || !in_scene(asset, j)) continue;
        const sk_mesh *mesh = &asset->meshes[mi];
        const float *weights = skel->weight_count[j] && pose.weights ? pose.weights + skel->weight_offset[j]
                                                                    : mesh->default_weights;
        int32_t si = asset->joint_skin[j];
        uint32_t pal_count = 0;
        if (si >= 0) {
            pal_count = asset->skins[si].joint_count;
            if ((r = sk_skin_palette(&asset->skins[si], model, n, palette, max_skin, err)) != SK_OK) goto done;
        }
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const sk_primitive *prim = &mesh->primitives[p];
            if (prim->mode != 4 || prim->missing_data) continue;
            uint32_t count = (prim->indices ? prim->index_count : prim->vertex_count) / 3 * 3;
            bool skinned = si >= 0 && prim->influence_count > 0;
            for (uint32_t k = 0; k < count; k++) {
                uint32_t v = prim->indices ? prim->indices[k] : k;
                sk_vec3 pos;
                if (!sk_primitive_vertex_position(prim, v, weights, skinned ? palette : NULL, pal_count, &model[j], &pos)) {
                    r = sk_error_set(err, SK_ERR_INVALID_DATA, "sk_terrain_mesh_from_asset: meshes/%d/primitives/%u: vertex %u",
                                     mi, p, v);
                    goto done;
                }
                if (!skm_vec3_finite(pos)) {
                    r = sk_error_set(err, SK_ERR_INVALID_DATA,
                                     "sk_terrain_mesh_from_asset: meshes/%d/primitives/%u: vertex %u is not finite in world space",
                                     mi, p, v);
                    goto done;
                }
                float *dst = m->tris + t * 3;
                dst[0] = pos.x;
                dst[1] = pos.y;
                dst[2] = pos.z;
                t++;
            }
        }
    }
    r = SK_OK;
done:
    sk_pose_free(&pose, a);
    if (model) sk_free(a, model, model_bytes);
    if (palette) sk_free(a, palette, pal_bytes);
    if (r != SK_OK) {
        sk_terrain_mesh_destroy(m);
        return r;
    }
    return mesh_done(m, opt, out, err);
}

sk_terrain_mesh_info sk_terrain_mesh_get_info(const sk_terrain_mesh *m) {
    sk_terrain_mesh_info info;
    memset(&info, 0, sizeof info);
    if (!m) return info;
    info.triangle_count = m->tri_count;
    info.degenerate_count = m->degenerate;
    info.min = sk_vec3_make((float)m->bmin[0], (float)m->bmin[1], (float)m->bmin[2]);
    info.max = sk_vec3_make((float)m->bmax[0], (float)m->bmax[1], (float)m->bmax[2]);
    info.cells_x = m->nx;
    info.cells_z = m->nz;
    info.references = m->refs;
    info.bytes = m->bytes;
    return info;
}

sk_terrain sk_terrain_mesh_terrain(const sk_terrain_mesh *mesh) {
    sk_terrain t = {0};
    if (!mesh) return t;
    t.raycast = ray_mesh_grid;
    t.user = (void *)(uintptr_t)mesh; /* read only */
    return t;
}

sk_terrain sk_terrain_mesh_terrain_brute_force(const sk_terrain_mesh *mesh) {
    sk_terrain t = {0};
    if (!mesh) return t;
    t.raycast = ray_mesh_brute;
    t.user = (void *)(uintptr_t)mesh;
    return t;
}
