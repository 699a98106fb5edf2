/* Terrain, the world layer's ground query (include/skelanim/world/terrain.h):
 * the entry points and the built-in analytic terrains; the triangle meshes
 * are terrain_mesh.c's.
 *
 * The analytic terrains are profiles: the height depends only on
 * s = dot(p - start, direction) (flat, ramp, stairs, ledge), so a ray is
 * intersected in the (s, y) plane with horizontal, sloped and vertical
 * pieces, in double precision. Stairs walk the step intervals the ray crosses
 * inside the band between the line through the inner corners and the line
 * through the nosings: outside that band a ray can meet no riser or tread
 * (every riser and tread lies inside it), and a ray that enters the band meets
 * the surface within the step interval it enters in, so the walk is short.
 * The bumps are a sum of sinusoids marched with steps bounded by the slope. */
#include "skelanim/world/terrain.h"

#include "core/internal.h"
#include "core/math_inline.h"
#include "terrain_internal.h"

#include <float.h>
#include <math.h>

enum { TK_FLAT = 1, TK_RAMP, TK_STAIRS, TK_BUMPS };

#define SK_TERRAIN_BUMP_WAVES 6
#define SK_TERRAIN_MAX_MARCH 4096
#define SK_TERRAIN_MAX_STAIR_WALK 4096

static bool dfinite(double x) { return x - x == 0.0; }

/* ---- the public entry points ---------------------------------------------- */

bool sk_terrain_raycast(const sk_terrain *terrain, sk_vec3 origin, sk_vec3 direction, float max_distance,
                        sk_terrain_hit *out) {
    if (!terrain || !terrain->raycast) return false;
    if (!skm_vec3_finite(origin) || !skm_vec3_finite(direction)) return false;
    if (!(max_distance >= 0.0f)) return false; /* NaN or negative */
    double dx = direction.x, dy = direction.y, dz = direction.z;
    double len = sqrt(dx * dx + dy * dy + dz * dz);
    if (!(len > 0.0) || !dfinite(len)) return false;
    /* A direction that is unit to float rounding is used as given. */
    sk_vec3 d = fabs(len - 1.0) <= 1e-6 ? direction : sk_vec3_make((float)(dx / len), (float)(dy / len), (float)(dz / len));
    sk_terrain_hit hit;
    if (!terrain->raycast(terrain->user, origin, d, max_distance, &hit)) return false;
    if (out) *out = hit;
    return true;
}

/* sk_terrain_raycast straight down, without its direction's checks and
 * normalisation ((0, -1, 0) is unit): the same answers. */
bool sk_terrain_height(const sk_terrain *terrain, float x, float z, float y_from, float max_drop, sk_terrain_hit *out) {
    if (!terrain || !terrain->raycast) return false;
    sk_vec3 origin = sk_vec3_make(x, y_from, z);
    if (!skm_vec3_finite(origin) || !(max_drop >= 0.0f)) return false;
    sk_terrain_hit hit;
    if (!terrain->raycast(terrain->user, origin, sk_vec3_make(0.0f, -1.0f, 0.0f), max_drop, &hit)) return false;
    if (out) *out = hit;
    return true;
}

/* ---- profiles in the (s, y) plane ----------------------------------------- */

typedef struct ray2 {
    double s0, ds;   /* along the profile direction */
    double y0, dy;
    double tmax;
} ray2;

typedef struct best2 {
    double t;
    double ns, ny;   /* normal in the (s, y) plane */
    bool hit;
} best2;

static ray2 ray2_make(const sk_terrain_shape *sh, sk_vec3 o, sk_vec3 d, float max_distance) {
    ray2 r;
    r.s0 = ((double)o.x - sh->start_x) * sh->dir_x + ((double)o.z - sh->start_z) * sh->dir_z;
    r.ds = (double)d.x * sh->dir_x + (double)d.z * sh->dir_z;
    r.y0 = o.y;
    r.dy = d.y;
    r.tmax = max_distance;
    return r;
}

/* Tolerance of the range checks on s and y (relative to the magnitudes). */
static double tol(double a) { return 1e-12 * (1.0 + fabs(a)); }

static void take(best2 *b, double t, double ns, double ny) {
    if (!b->hit || t < b->t) {
        b->hit = true;
        b->t = t;
        b->ns = ns;
        b->ny = ny;
    }
}

/* y = c for s in [lo, hi] (lo/hi may be infinite). */
static void piece_flat(const ray2 *r, double c, double lo, double hi, best2 *b) {
    if (r->dy == 0.0) return;
    double t = (c - r->y0) / r->dy;
    if (!(t >= 0.0 && t <= r->tmax)) return;
    double s = r->s0 + t * r->ds;
    if (s < lo - tol(lo) || s > hi + tol(hi)) return;
    take(b, t, 0.0, 1.0);
}

/* y = base + m s for s in [lo, hi]. */
static void piece_slope(const ray2 *r, double base, double m, double lo, double hi, best2 *b) {
    double den = r->dy - m * r->ds;
    if (den == 0.0) return;
    double t = (base + m * r->s0 - r->y0) / den;
    if (!(t >= 0.0 && t <= r->tmax)) return;
    double s = r->s0 + t * r->ds;
    if (s < lo - tol(lo) || s > hi + tol(hi)) return;
    take(b, t, -m, 1.0);
}

/* The vertical segment s = sv, ya <= y <= yb (any order). */
static void piece_wall(const ray2 *r, double sv, double ya, double yb, best2 *b) {
    if (r->ds == 0.0) return;
    double t = (sv - r->s0) / r->ds;
    if (!(t >= 0.0 && t <= r->tmax)) return;
    double y = r->y0 + t * r->dy, lo = skm_fmin(ya, yb), hi = skm_fmax(ya, yb);
    if (y < lo - tol(lo) || y > hi + tol(hi)) return;
    take(b, t, 1.0, 0.0);
}

static bool finish2(const sk_terrain_shape *sh, const best2 *b, sk_vec3 o, sk_vec3 d, sk_terrain_hit *out) {
    if (!b->hit) return false;
    return make_hit(o, d, b->t, b->ns * sh->dir_x, b->ny, b->ns * sh->dir_z, out);
}

static bool ray_flat(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    const sk_terrain_shape *sh = user;
    ray2 r = ray2_make(sh, o, d, max_distance);
    best2 b = {0};
    piece_flat(&r, sh->base, -INFINITY, INFINITY, &b);
    return finish2(sh, &b, o, d, out);
}

/* p[0] = tan(angle), p[1] = length (INFINITY: endless) */
static bool ray_ramp(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    const sk_terrain_shape *sh = user;
    ray2 r = ray2_make(sh, o, d, max_distance);
    double m = sh->p[0], len = sh->p[1];
    best2 b = {0};
    piece_flat(&r, sh->base, -INFINITY, 0.0, &b);
    piece_slope(&r, sh->base, m, 0.0, len, &b);
    if (dfinite(len)) piece_flat(&r, sh->base + m * len, len, INFINITY, &b);
    return finish2(sh, &b, o, d, out);
}

/* p[0] = rise, p[1] = run, p[2] = count (INFINITY: endless) */
static bool ray_stairs(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    const sk_terrain_shape *sh = user;
    ray2 r = ray2_make(sh, o, d, max_distance);
    double rise = sh->p[0], run = sh->p[1], n = sh->p[2], base = sh->base;
    best2 b = {0};
    piece_flat(&r, base, -INFINITY, 0.0, &b);
    /* The band between y = base + rise s / run + c, c from min(0, rise) to
     * max(0, rise), for 0 <= s <= n run holds every riser and tread but the
     * part of the last tread beyond n run. */
    double send = n * run; /* INFINITY when endless */
    if (dfinite(n)) piece_flat(&r, base + n * rise, send, INFINITY, &b);
    double m = rise / run;
    double g0 = r.y0 - base - m * r.s0, g1 = r.dy - m * r.ds;
    double clo = skm_fmin(0.0, rise), chi = skm_fmax(0.0, rise);
    double pad = 1e-9 * (fabs(rise) + 1.0);
    double ta = 0.0, tb = r.tmax;
    if (g1 == 0.0) {
        if (g0 < clo - pad || g0 > chi + pad) ta = INFINITY;
    } else {
        double t1 = (clo - pad - g0) / g1, t2 = (chi + pad - g0) / g1;
        ta = skm_fmax(ta, skm_fmin(t1, t2));
        tb = skm_fmin(tb, skm_fmax(t1, t2));
    }
    double spad = 1e-9 * run;
    if (r.ds == 0.0) {
        if (r.s0 < -spad || r.s0 > send + spad) ta = INFINITY;
    } else {
        double t1 = (-spad - r.s0) / r.ds, t2 = (send + spad - r.s0) / r.ds;
        ta = skm_fmax(ta, skm_fmin(t1, t2));
        tb = skm_fmin(tb, skm_fmax(t1, t2));
    }
    if (ta <= tb && dfinite(ta)) {
        double sa = r.s0 + ta * r.ds;
        double kf = floor(sa / run);
        double kmax = dfinite(n) ? n - 1.0 : 9.0e15;
        if (kf < 0.0) kf = 0.0;
        if (kf > kmax) kf = kmax;
        int step = r.ds > 0.0 ? 1 : (r.ds < 0.0 ? -1 : 0);
        for (int it = 0; it < SK_TERRAIN_MAX_STAIR_WALK; it++) {
            double lo = kf * run, hi = (kf + 1.0) * run;
            double top = base + (kf + 1.0) * rise;
            /* tread kf (the last one is the flat piece beyond n run too), its two risers */
            piece_flat(&r, top, lo, hi, &b);
            piece_wall(&r, lo, base + kf * rise, top, &b);
            if (kf + 1.0 <= kmax) piece_wall(&r, hi, top, top + rise, &b);
            if (step == 0) break;
            double t_exit = ((step > 0 ? hi : lo) - r.s0) / r.ds;
            if ((b.hit && b.t <= t_exit) || t_exit >= tb) break;
            kf += step;
            if (kf < 0.0 || kf > kmax) break;
        }
    }
    return finish2(sh, &b, o, d, out);
}

/* ---- bumps ---------------------------------------------------------------- */

/* sin and cos of x together: x reduced by multiples of pi/2 (Cody-Waite,
 * pi/2 in two parts: exact to about 1e-15 for |x| < 1e6, beyond any terrain),
 * then Taylor polynomials on [-pi/4, pi/4] (truncation below 3e-14). About
 * eight times faster than libm's sin and cos, which dominated the bumps'
 * ray casts. Height and gradient both come from here, so they agree. */
static inline void bump_sincos(double x, double *s_out, double *c_out) {
    const double two_over_pi = 0.63661977236758134308, pio2_hi = 1.5707963267341256e+00,
                 pio2_lo = 6.0771005065061922e-11;
    double y = x * two_over_pi;
    if (!(fabs(y) < 1e15)) { /* far outside any terrain: the C library's answer */
        *s_out = sin(x);
        *c_out = cos(x);
        return;
    }
    long long q = (long long)(y + (y >= 0.0 ? 0.5 : -0.5));
    double n = (double)q;
    double r = (x - n * pio2_hi) - n * pio2_lo, r2 = r * r;
    double sn = r * (1.0 + r2 * (-1.0 / 6 + r2 * (1.0 / 120 + r2 * (-1.0 / 5040 + r2 * (1.0 / 362880 +
                r2 * (-1.0 / 39916800 + r2 * (1.0 / 6227020800.0)))))));
    double cs = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24 + r2 * (-1.0 / 720 + r2 * (1.0 / 40320 + r2 * (-1.0 / 3628800 +
                r2 * (1.0 / 479001600.0 + r2 * (-1.0 / 87178291200.0)))))));
    /* quadrant q mod 4: (s, c) = (sn, cs), (cs, -sn), (-sn, -cs), (-cs, sn); without branches */
    bool swap = (q & 1) != 0;
    double sign = (q & 2) ? -1.0 : 1.0;
    *s_out = sign * (swap ? cs : sn);
    *c_out = sign * (swap ? -sn : cs);
}

/* p[0] = amplitude, p[1] = gradient bound G = A sum w|k|, p[2] = curvature
 * bound A sum w|k|^2 */
static double bumps_eval(const sk_terrain_shape *sh, double x, double z, double *gx, double *gz) {
    double h = 0.0, ax = 0.0, az = 0.0, a = sh->p[0];
    for (int i = 0; i < SK_TERRAIN_BUMP_WAVES; i++) {
        const double *w = sh->wave[i];
        double sn, cs;
        bump_sincos(w[0] * x + w[1] * z + w[2], &sn, &cs);
        h += w[3] * sn;
        double c = w[3] * cs;
        ax += c * w[0];
        az += c * w[1];
    }
    if (gx) {
        *gx = a * ax;
        *gz = a * az;
    }
    return sh->base + a * h;
}

float sk_terrain_bumps_height(const sk_terrain_shape *storage, float x, float z, sk_vec3 *normal) {
    if (!storage || storage->kind != TK_BUMPS) return 0.0f;
    double gx, gz;
    double h = bumps_eval(storage, x, z, &gx, &gz);
    if (normal) {
        double l = sqrt(gx * gx + 1.0 + gz * gz);
        *normal = sk_vec3_make((float)(-gx / l), (float)(1.0 / l), (float)(-gz / l));
    }
    return (float)h;
}

static bool ray_bumps(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    const sk_terrain_shape *sh = user;
    double a = sh->p[0], gx, gz;
    double dh2 = (double)d.x * d.x + (double)d.z * d.z;
    if (dh2 == 0.0) { /* straight up or down: one evaluation */
        double h = bumps_eval(sh, o.x, o.z, &gx, &gz);
        double t = (h - o.y) / d.y;
        if (!(t >= 0.0 && t <= max_distance)) return false;
        return make_hit(o, d, t, -gx, 1.0, -gz, out);
    }
    /* The slab base - a <= y <= base + a holds the surface. */
    double ta = 0.0, tb = max_distance, pad = 1e-9 * (1.0 + a);
    if (d.y == 0.0) {
        if (fabs(o.y - sh->base) > a + pad) return false;
    } else {
        double t1 = (sh->base - a - pad - o.y) / d.y, t2 = (sh->base + a + pad - o.y) / d.y;
        ta = skm_fmax(ta, skm_fmin(t1, t2));
        tb = skm_fmin(tb, skm_fmax(t1, t2));
    }
    if (!(ta <= tb)) return false;
    /* f(t) = y(t) - h(x(t), z(t)); |f''| <= curv. From f and f' at t, the
     * concave bound f + f' s - curv s^2 / 2 (for f > 0; mirrored for f < 0)
     * is positive up to its first root s*, so no crossing lies before
     * t + s*: step there (Newton-like near a crossing, never past one). */
    double curv = sh->p[2] * dh2;
    const double eps = 1e-10;
    double t = ta, side = 0.0;
    for (int it = 0; it < SK_TERRAIN_MAX_MARCH; it++) {
        double h = bumps_eval(sh, o.x + t * d.x, o.z + t * d.z, &gx, &gz);
        double f = ((double)o.y + t * d.y) - h, fp = d.y - (gx * d.x + gz * d.z);
        if (side == 0.0) side = f >= 0.0 ? 1.0 : -1.0;
        f *= side;
        fp *= side;
        if (f <= eps) {
            if (t > max_distance) return false;
            return make_hit(o, d, t, -gx, 1.0, -gz, out);
        }
        double den = sqrt(fp * fp + 2.0 * curv * f) - fp;
        if (!(den > 0.0)) return false;       /* f' >= 0 with no curvature: never comes back */
        double s = 2.0 * f / den;
        if (t + s > tb) {
            /* the last step may end just past the slab: look at tb once */
            if (t >= tb) return false;
            s = tb - t;
            double fe = side * (((double)o.y + tb * d.y) - bumps_eval(sh, o.x + tb * d.x, o.z + tb * d.z, NULL, NULL));
            if (fe > eps) return false;
        }
        t += s;
    }
    return false;
}

/* ---- constructors ---------------------------------------------------------- */

static void shape_init(sk_terrain_shape *sh, uint32_t kind, double base) {
    memset(sh, 0, sizeof *sh);
    sh->kind = kind;
    sh->base = base;
    sh->dir_z = 1.0;
}

/* start and a horizontal direction (zero: +Z) */
static bool shape_line(sk_terrain_shape *sh, sk_vec3 start, sk_vec3 dir, const char *who, sk_error *err) {
    if (!skm_vec3_finite(start) || !skm_vec3_finite(dir)) {
        sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: start and direction must be finite", who);
        return false;
    }
    double dx = dir.x, dz = dir.z, l = sqrt(dx * dx + dz * dz);
    if (l > 0.0) {
        sh->dir_x = dx / l;
        sh->dir_z = dz / l;
    }
    sh->start_x = start.x;
    sh->start_z = start.z;
    return true;
}

static sk_terrain terrain_of(sk_terrain_shape *sh, sk_terrain_raycast_fn fn) {
    sk_terrain t;
    t.raycast = fn;
    t.user = sh;
    return t;
}

sk_terrain sk_terrain_flat(sk_terrain_shape *storage, float height) {
    sk_terrain none = {0};
    if (!storage) return none;
    shape_init(storage, TK_FLAT, sk_isfinite_f(height) ? height : 0.0f);
    return terrain_of(storage, ray_flat);
}


sk_result sk_terrain_ramp(sk_terrain_shape *storage, const sk_terrain_ramp_options *opt, sk_terrain *out,
                          sk_error *err) {
    sk_terrain_ramp_options o = {0};
    if (opt) o = *opt;
    if (!storage || !out) return bad(err, "sk_terrain_ramp: storage and out are required");
    if (!sk_isfinite_f(o.angle) || !(fabsf(o.angle) < 0.5f * SKM_PI))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_terrain_ramp: angle %g rad: |angle| must be below pi/2",
                            (double)o.angle);
    if (!sk_isfinite_f(o.length) || o.length < 0.0f) return bad(err, "sk_terrain_ramp: length must be finite and >= 0");
    shape_init(storage, TK_RAMP, o.start.y);
    if (!shape_line(storage, o.start, o.direction, "sk_terrain_ramp", err)) return err ? err->code : SK_ERR_INVALID_ARGUMENT;
    storage->p[0] = tan((double)o.angle);
    storage->p[1] = o.length > 0.0f ? (double)o.length : INFINITY;
    *out = terrain_of(storage, ray_ramp);
    return SK_OK;
}

static sk_result stairs_init(sk_terrain_shape *sh, double base, double rise, double run, double count, sk_vec3 start,
                             sk_vec3 dir, const char *who, sk_error *err) {
    shape_init(sh, TK_STAIRS, base);
    if (!shape_line(sh, start, dir, who, err)) return err ? err->code : SK_ERR_INVALID_ARGUMENT;
    sh->p[0] = rise;
    sh->p[1] = run;
    sh->p[2] = count;
    return SK_OK;
}

sk_result sk_terrain_stairs(sk_terrain_shape *storage, const sk_terrain_stairs_options *opt, sk_terrain *out,
                            sk_error *err) {
    sk_terrain_stairs_options o = {0};
    if (opt) o = *opt;
    if (!storage || !out) return bad(err, "sk_terrain_stairs: storage and out are required");
    if (o.rise == 0.0f) o.rise = 0.17f;
    if (o.run == 0.0f) o.run = 0.28f;
    if (!sk_isfinite_f(o.rise) || !sk_isfinite_f(o.run) || !(o.run > 0.0f) || fabsf(o.rise) > 1e6f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_terrain_stairs: rise %g, run %g: run must be > 0, both finite",
                            (double)o.rise, (double)o.run);
    sk_result r = stairs_init(storage, o.start.y, o.rise, o.run, o.count ? (double)o.count : INFINITY, o.start,
                              o.direction, "sk_terrain_stairs", err);
    if (r != SK_OK) return r;
    *out = terrain_of(storage, ray_stairs);
    return SK_OK;
}

sk_result sk_terrain_ledge(sk_terrain_shape *storage, const sk_terrain_ledge_options *opt, sk_terrain *out,
                           sk_error *err) {
    sk_terrain_ledge_options o = {0};
    if (opt) o = *opt;
    if (!storage || !out) return bad(err, "sk_terrain_ledge: storage and out are required");
    if (o.height == 0.0f) o.height = 1.0f;
    if (!sk_isfinite_f(o.height) || !sk_isfinite_f(o.floor) || !(o.height > 0.0f))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_terrain_ledge: height %g, floor %g: height must be > 0, both finite",
                            (double)o.height, (double)o.floor);
    /* One step down: stairs of one riser of -height from the ledge top. */
    double top = (double)o.floor + (double)o.height;
    sk_result r = stairs_init(storage, top, -(double)o.height, 1.0, 1.0, o.edge, o.direction, "sk_terrain_ledge", err);
    if (r != SK_OK) return r;
    *out = terrain_of(storage, ray_stairs);
    return SK_OK;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double unit_rand(uint64_t *s) { return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0); }

sk_result sk_terrain_bumps(sk_terrain_shape *storage, const sk_terrain_bumps_options *opt, sk_terrain *out,
                           sk_error *err) {
    sk_terrain_bumps_options o = {0};
    if (opt) o = *opt;
    if (!storage || !out) return bad(err, "sk_terrain_bumps: storage and out are required");
    if (o.amplitude == 0.0f) o.amplitude = 0.1f;
    if (o.wavelength == 0.0f) o.wavelength = 2.0f;
    if (!sk_isfinite_f(o.amplitude) || !sk_isfinite_f(o.wavelength) || !sk_isfinite_f(o.base) || o.amplitude < 0.0f ||
        !(o.wavelength > 1e-3f))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_terrain_bumps: amplitude %g, wavelength %g: amplitude >= 0, wavelength > 1 mm, finite",
                            (double)o.amplitude, (double)o.wavelength);
    shape_init(storage, TK_BUMPS, o.base);
    uint64_t s = 0x5eed7e55a1ull ^ ((uint64_t)o.seed * 0x9E3779B97F4A7C15ull);
    double wsum = 0.0, g = 0.0, c = 0.0;
    for (int i = 0; i < SK_TERRAIN_BUMP_WAVES; i++) {
        double ang = 2.0 * 3.14159265358979323846 * unit_rand(&s);
        double lambda = (double)o.wavelength * (i == 0 ? 1.0 : 0.5 + 0.5 * unit_rand(&s));
        double k = 2.0 * 3.14159265358979323846 / lambda;
        storage->wave[i][0] = k * cos(ang);
        storage->wave[i][1] = k * sin(ang);
        storage->wave[i][2] = 2.0 * 3.14159265358979323846 * unit_rand(&s);
        storage->wave[i][3] = 1.0 / (1.0 + 0.5 * i);
        wsum += storage->wave[i][3];
    }
    for (int i = 0; i < SK_TERRAIN_BUMP_WAVES; i++) {
        storage->wave[i][3] /= wsum;
        double k2 = storage->wave[i][0] * storage->wave[i][0] + storage->wave[i][1] * storage->wave[i][1];
        g += storage->wave[i][3] * sqrt(k2);
        c += storage->wave[i][3] * k2;
    }
    storage->p[0] = o.amplitude;
    storage->p[1] = o.amplitude * g;
    storage->p[2] = o.amplitude * c;
    *out = terrain_of(storage, ray_bumps);
    return SK_OK;
}
