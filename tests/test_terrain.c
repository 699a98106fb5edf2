/* Terrain (include/skelanim/world/terrain.h): ray casts against the
 * built-in terrains checked against closed-form intersections written here
 * independently (3D plane and segment tests, not the library's (s, y)
 * profile walk), on seeded random rays whose hit counts are asserted; normals;
 * a ray grazing a stair nosing; misses; hostile input (NaN, Inf, zero
 * direction); triangle meshes of an analytic ramp and stairs against the
 * analytic terrains; the grid against brute force on a random mesh; vertical
 * rays exactly on shared vertices and edges of adjacent triangles (no crack,
 * the same hit as brute force) under several grid densities; a mesh
 * from an sk_asset built in code (world-space placement, default scene only);
 * degenerate and empty meshes; allocation failure. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static uint64_t rng_state = 0x7e44a1c0ffee1234ull;
static double rnd(void) { /* xorshift64*, [0,1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}
static double rr(double a, double b) { return a + (b - a) * rnd(); }
static sk_vec3 rnd_dir(void) {
    for (;;) {
        double x = rr(-1, 1), y = rr(-1, 1), z = rr(-1, 1), l = sqrt(x * x + y * y + z * z);
        if (l > 0.1 && l <= 1.0) return sk_vec3_make((float)(x / l), (float)(y / l), (float)(z / l));
    }
}

/* ---- an independent reference: the first hit among planar pieces --------- */
/* A piece is a plane (point p, unit normal n) limited to a convex region
 * tested by a callback on the hit point. */
typedef struct ref_hit {
    bool hit;
    double t;
    double n[3]; /* the piece's normal (not turned) */
    double p[3];
} ref_hit;

typedef bool (*region_fn)(const double p[3], const void *ctx);

static void ref_plane(ref_hit *best, const double o[3], const double d[3], double tmax, const double p0[3],
                      const double n[3], region_fn inside, const void *ctx) {
    double den = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
    if (den == 0.0) return;
    double t = (n[0] * (p0[0] - o[0]) + n[1] * (p0[1] - o[1]) + n[2] * (p0[2] - o[2])) / den;
    if (!(t >= 0.0 && t <= tmax)) return;
    double p[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
    if (!inside(p, ctx)) return;
    if (!best->hit || t < best->t) {
        best->hit = true;
        best->t = t;
        memcpy(best->n, n, sizeof best->n);
        memcpy(best->p, p, sizeof best->p);
    }
}

/* a band of s = dot(p - start, dir) and of y */
typedef struct band {
    double sx, sz, dx, dz; /* start (x, z), unit direction */
    double s_lo, s_hi, y_lo, y_hi;
} band;
static bool in_band(const double p[3], const void *ctx) {
    const band *b = ctx;
    double s = (p[0] - b->sx) * b->dx + (p[2] - b->sz) * b->dz;
    const double e = 1e-9;
    return s >= b->s_lo - e && s <= b->s_hi + e && p[1] >= b->y_lo - e && p[1] <= b->y_hi + e;
}

/* checks a library hit against the reference; returns the position error */
static double check_hit(const sk_terrain_hit *h, const ref_hit *r, const double o[3], const double d[3]) {
    double err = fabs((double)h->distance - r->t);
    const double hp[3] = {h->point.x, h->point.y, h->point.z}, hn[3] = {h->normal.x, h->normal.y, h->normal.z};
    for (int a = 0; a < 3; a++) err = fmax(err, fabs(hp[a] - r->p[a]));
    /* the normal: the piece's, turned to face the origin */
    double sgn = r->n[0] * d[0] + r->n[1] * d[1] + r->n[2] * d[2] > 0.0 ? -1.0 : 1.0;
    for (int a = 0; a < 3; a++) assert_true(fabs(hn[a] - sgn * r->n[a]) < 1e-6);
    assert_true((double)h->normal.x * d[0] + (double)h->normal.y * d[1] + (double)h->normal.z * d[2] <= 0.0);
    (void)o;
    return err;
}

/* random rays in a box; max distance up to 12 m */
static void rnd_ray(double o[3], double d[3], double *tmax, double half, double ylo, double yhi) {
    o[0] = rr(-half, half);
    o[1] = rr(ylo, yhi);
    o[2] = rr(-half, half);
    sk_vec3 v = rnd_dir();
    d[0] = v.x, d[1] = v.y, d[2] = v.z;
    *tmax = rr(0.0, 12.0);
}

static bool cast(const sk_terrain *t, const double o[3], const double d[3], double tmax, sk_terrain_hit *h) {
    return sk_terrain_raycast(t, sk_vec3_make((float)o[0], (float)o[1], (float)o[2]),
                              sk_vec3_make((float)d[0], (float)d[1], (float)d[2]), (float)tmax, h);
}

/* The reference ray uses the same float origin and direction the library sees. */
static void to_float(double o[3], double d[3]) {
    /* Through volatile floats: with plain o[a] = (float)o[a], gcc 12 at -O2/-O3
     * (tree vectorizer) left o unrounded in the ramp loop below. */
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int a = 0; a < 3; a++) {
        volatile float fo = (float)o[a], fd = (float)(d[a] / l);
        o[a] = fo;
        d[a] = fd;
    }
}

/* ---- flat ---- */
static void test_flat(void **state) {
    (void)state;
    sk_terrain_shape sh;
    sk_terrain t = sk_terrain_flat(&sh, 0.75f);
    int hits = 0, expected = 0, n = 20000;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double o[3], d[3], tmax;
        rnd_ray(o, d, &tmax, 10.0, -5.0, 5.0);
        to_float(o, d);
        ref_hit r = {0};
        if (d[1] != 0.0) {
            double tt = (0.75f - o[1]) / d[1];
            if (tt >= 0.0 && tt <= (float)tmax) {
                r.hit = true, r.t = tt, r.n[1] = 1.0;
                for (int a = 0; a < 3; a++) r.p[a] = o[a] + tt * d[a];
            }
        }
        sk_terrain_hit h;
        bool got = cast(&t, o, d, tmax, &h);
        assert_int_equal(got, r.hit);
        if (r.hit) {
            expected++;
            worst = fmax(worst, check_hit(&h, &r, o, d));
            assert_true(h.point.y == 0.75f || fabs(h.point.y - 0.75) < 1e-6);
        }
        hits += got;
    }
    printf("flat: %d of %d random rays hit (closed form: %d), worst position error %.3g m\n", hits, n, expected, worst);
    assert_int_equal(hits, expected);
    assert_true(hits > 3000 && hits < 12000);
    assert_true(worst < 1e-5);
    /* the height query */
    sk_terrain_hit h;
    assert_true(sk_terrain_height(&t, 3.0f, -2.0f, 2.0f, 5.0f, &h));
    assert_true(h.point.y == 0.75f && h.normal.y == 1.0f && fabsf(h.distance - 1.25f) < 1e-6f);
    assert_false(sk_terrain_height(&t, 3.0f, -2.0f, 2.0f, 1.0f, &h)); /* the ground is 1.25 m below */
    assert_true(sk_terrain_height(&t, 3.0f, -2.0f, 2.0f, 1.25f, &h)); /* exactly at max: a hit */
    /* from below: the normal faces down, towards the origin */
    assert_true(sk_terrain_raycast(&t, sk_vec3_make(0, -1, 0), sk_vec3_make(0, 1, 0), 10.0f, &h));
    assert_true(h.normal.y == -1.0f);
}

/* ---- ramp ---- */
typedef struct ramp_ref {
    double angle, sx, sy, sz, dx, dz, len; /* len: INFINITY = endless */
} ramp_ref;

static ref_hit ramp_reference(const ramp_ref *q, const double o[3], const double d[3], double tmax) {
    ref_hit best = {0};
    double ca = cos(q->angle), sa = sin(q->angle), ta = tan(q->angle);
    double up[3] = {0, 1, 0}, p0[3] = {q->sx, q->sy, q->sz};
    band before = {q->sx, q->sz, q->dx, q->dz, -INFINITY, 0.0, -INFINITY, INFINITY};
    ref_plane(&best, o, d, tmax, p0, up, in_band, &before);
    double ns[3] = {-sa * q->dx, ca, -sa * q->dz};
    band slope = {q->sx, q->sz, q->dx, q->dz, 0.0, q->len, -INFINITY, INFINITY};
    ref_plane(&best, o, d, tmax, p0, ns, in_band, &slope);
    if (isfinite(q->len)) {
        double p1[3] = {q->sx + q->len * q->dx, q->sy + q->len * ta, q->sz + q->len * q->dz};
        band top = {q->sx, q->sz, q->dx, q->dz, q->len, INFINITY, -INFINITY, INFINITY};
        ref_plane(&best, o, d, tmax, p1, up, in_band, &top);
    }
    return best;
}

static void run_ramp(double angle_deg, float length, sk_vec3 dir, int *hits_out, int *slope_hits, double *worst) {
    sk_terrain_shape sh;
    sk_terrain t;
    sk_error err;
    sk_terrain_ramp_options o = {.angle = (float)(angle_deg * PI / 180.0), .start = {1.0f, 0.5f, -2.0f},
                                 .direction = dir, .length = length};
    assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_OK);
    double dl = sqrt((double)dir.x * dir.x + (double)dir.z * dir.z);
    ramp_ref q = {o.angle, 1.0f, 0.5f, -2.0f, dl > 0 ? dir.x / dl : 0.0, dl > 0 ? dir.z / dl : 1.0, length > 0 ? length : INFINITY};
    int hits = 0, on_slope = 0;
    for (int i = 0; i < 20000; i++) {
        double ro[3], rd[3], tmax;
        rnd_ray(ro, rd, &tmax, 8.0, -3.0, 8.0);
        to_float(ro, rd);
        ref_hit r = ramp_reference(&q, ro, rd, (float)tmax);
        sk_terrain_hit h;
        bool got = cast(&t, ro, rd, tmax, &h);
        assert_int_equal(got, r.hit);
        if (!got) continue;
        hits++;
        if (r.n[1] != 1.0) on_slope++;
        double e = check_hit(&h, &r, ro, rd);
        *worst = fmax(*worst, e);
    }
    *hits_out = hits;
    *slope_hits = on_slope;
}

static void test_ramp(void **state) {
    (void)state;
    static const struct { double deg; float len; sk_vec3 dir; } cases[] = {
        {30.0, 4.0f, {3.0f, 0.0f, 4.0f}}, {45.0, 0.0f, {-1.0f, 0.0f, 0.0f}}, {-10.0, 6.0f, {0.0f, 0.0f, 0.0f}},
        {80.0, 1.0f, {1.0f, 7.0f, 1.0f}}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int hits = 0, slope = 0;
        double worst = 0.0;
        run_ramp(cases[c].deg, cases[c].len, cases[c].dir, &hits, &slope, &worst);
        printf("ramp %g deg, length %g: %d of 20000 rays hit as the closed form says (%d on the slope), worst error %.3g m\n",
               cases[c].deg, (double)cases[c].len, hits, slope, worst);
        assert_true(hits > 4000);
        assert_true(slope > 500);
        assert_true(worst < 1e-5);
    }
    /* the normal on the slope: -sin(a) direction + cos(a) up, from a vertical ray */
    sk_terrain_shape sh;
    sk_terrain t;
    sk_terrain_ramp_options o = {.angle = (float)(30.0 * PI / 180.0), .direction = {3.0f, 0.0f, 4.0f}};
    assert_int_equal(sk_terrain_ramp(&sh, &o, &t, NULL), SK_OK);
    sk_terrain_hit h;
    assert_true(sk_terrain_height(&t, 0.6f * 2.0f, 0.8f * 2.0f, 5.0f, 10.0f, &h)); /* s = 2 */
    double a = o.angle;
    assert_true(fabs(h.point.y - 2.0 * tan(a)) < 1e-6);
    assert_true(fabs(h.normal.x - (-sin(a) * 0.6)) < 1e-6 && fabs(h.normal.y - cos(a)) < 1e-6 &&
                fabs(h.normal.z - (-sin(a) * 0.8)) < 1e-6);
    /* before the start line: flat at start.y */
    assert_true(sk_terrain_height(&t, -0.6f, -0.8f, 5.0f, 10.0f, &h) && h.point.y == 0.0f && h.normal.y == 1.0f);
    /* bad angles */
    sk_error err;
    o.angle = (float)(PI / 2);
    assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "pi/2"));
    o.angle = NAN;
    assert_int_equal(sk_terrain_ramp(&sh, &o, &t, &err), SK_ERR_INVALID_ARGUMENT);
    /* zeroed options: a flat ramp along +Z at 0 */
    assert_int_equal(sk_terrain_ramp(&sh, NULL, &t, &err), SK_OK);
    assert_true(sk_terrain_height(&t, 1.0f, 1.0f, 1.0f, 2.0f, &h) && h.point.y == 0.0f);
}

/* ---- stairs and ledge ---- */
typedef struct stairs_ref {
    double base, rise, run, sx, sz, dx, dz;
    int count; /* risers */
} stairs_ref;

static ref_hit stairs_reference(const stairs_ref *q, const double o[3], const double d[3], double tmax) {
    ref_hit best = {0};
    double up[3] = {0, 1, 0}, fwd[3] = {q->dx, 0, q->dz};
    double p[3] = {q->sx, q->base, q->sz};
    band before = {q->sx, q->sz, q->dx, q->dz, -INFINITY, 0.0, -INFINITY, INFINITY};
    ref_plane(&best, o, d, tmax, p, up, in_band, &before);
    for (int k = 0; k < q->count; k++) {
        double lo = q->base + k * q->rise, hi = q->base + (k + 1) * q->rise;
        double pk[3] = {q->sx + k * q->run * q->dx, lo, q->sz + k * q->run * q->dz};
        band riser = {q->sx, q->sz, q->dx, q->dz, k * q->run, k * q->run, fmin(lo, hi), fmax(lo, hi)};
        ref_plane(&best, o, d, tmax, pk, fwd, in_band, &riser);
        double pt[3] = {pk[0], hi, pk[2]};
        band tread = {q->sx, q->sz, q->dx, q->dz, k * q->run, k + 1 == q->count ? INFINITY : (k + 1) * q->run,
                      -INFINITY, INFINITY};
        ref_plane(&best, o, d, tmax, pt, up, in_band, &tread);
    }
    return best;
}

static void run_stairs(const sk_terrain *t, const stairs_ref *q, const char *what, double half) {
    int hits = 0, treads = 0, risers = 0, n = 30000;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double ro[3], rd[3], tmax;
        rnd_ray(ro, rd, &tmax, half, q->base - 1.5, q->base + fabs(q->rise) * q->count + 1.5);
        ro[0] += q->sx, ro[2] += q->sz;
        to_float(ro, rd);
        ref_hit r = stairs_reference(q, ro, rd, (float)tmax);
        sk_terrain_hit h;
        bool got = cast(t, ro, rd, tmax, &h);
        if (got != r.hit) {
            printf("%s: ray %d (%.9g %.9g %.9g) dir (%.9g %.9g %.9g) max %.9g: library %d, reference %d (t %.9g)\n", what, i,
                   ro[0], ro[1], ro[2], rd[0], rd[1], rd[2], (float)tmax, got, r.hit, r.t);
        }
        assert_int_equal(got, r.hit);
        if (!got) continue;
        hits++;
        if (r.n[1] == 1.0) treads++;
        else risers++;
        worst = fmax(worst, check_hit(&h, &r, ro, rd));
    }
    printf("%s: %d of %d rays hit as the closed form says (%d treads, %d risers), worst error %.3g m\n", what, hits, n,
           treads, risers, worst);
    assert_true(treads > 2000 && risers > 500);
    assert_true(worst < 1e-5);
}

static void test_stairs(void **state) {
    (void)state;
    sk_terrain_shape sh;
    sk_terrain t;
    sk_error err;
    sk_terrain_stairs_options o = {.rise = 0.17f, .run = 0.28f, .start = {0.5f, 0.1f, -0.3f},
                                   .direction = {1.0f, 0.0f, 2.0f}, .count = 8};
    assert_int_equal(sk_terrain_stairs(&sh, &o, &t, &err), SK_OK);
    double dl = sqrt(5.0);
    stairs_ref q = {0.1f, 0.17f, 0.28f, 0.5f, -0.3f, 1.0 / dl, 2.0 / dl, 8};
    run_stairs(&t, &q, "stairs up (0.17 rise, 0.28 run, 8 risers)", 3.0);
    /* stairs down, along -X */
    sk_terrain_stairs_options od = {.rise = -0.2f, .run = 0.3f, .direction = {-1.0f, 0.0f, 0.0f}, .count = 5};
    sk_terrain_shape shd;
    sk_terrain td;
    assert_int_equal(sk_terrain_stairs(&shd, &od, &td, &err), SK_OK);
    stairs_ref qd = {0.0, -0.2f, 0.3f, 0.0, 0.0, -1.0, 0.0, 5};
    run_stairs(&td, &qd, "stairs down (-0.2 rise, 0.3 run, 5 risers)", 2.5);

    /* along +Z from the origin (zeroed direction): exact heights per tread */
    sk_terrain_stairs_options oz = {.count = 0}; /* defaults: 0.17, 0.28, endless */
    sk_terrain_shape shz;
    sk_terrain tz;
    assert_int_equal(sk_terrain_stairs(&shz, &oz, &tz, &err), SK_OK);
    sk_terrain_hit h;
    for (int k = 0; k < 200; k++) {
        float z = 0.28f * (float)k + 0.1f;
        assert_true(sk_terrain_height(&tz, 0.3f, z, 0.17f * (float)k + 2.0f, 4.0f, &h));
        assert_true(fabs(h.point.y - 0.17 * (k + 1)) < 1e-5);
        assert_true(h.normal.x == 0.0f && h.normal.y == 1.0f && h.normal.z == 0.0f);
    }
    /* a horizontal ray approaching riser 0: normal -direction (facing the approach) */
    assert_true(sk_terrain_raycast(&tz, sk_vec3_make(0, 0.05f, -1.0f), sk_vec3_make(0, 0, 1), 5.0f, &h));
    assert_true(fabsf(h.distance - 1.0f) < 1e-6f && h.normal.z == -1.0f && h.normal.y == 0.0f);
    /* from the other side (inside the first step, going back): normal +direction */
    assert_true(sk_terrain_raycast(&tz, sk_vec3_make(0, 0.05f, 0.1f), sk_vec3_make(0, 0, -1), 5.0f, &h));
    assert_true(fabsf(h.distance - 0.1f) < 1e-6f && h.normal.z == 1.0f);
    /* grazing the nosing of step 3 (front edge of tread 3 at z = 0.84, y = 0.68):
     * a 45-degree ray through it touches the edge itself; 0.1 mm higher it
     * lands on the tread just behind the edge, 0.1 mm lower on the riser. */
    double zn = 3 * 0.28f, yn = 4 * 0.17f;
    sk_vec3 d45 = sk_vec3_make(0.0f, -0.70710678f, 0.70710678f);
    for (int k = -1; k <= 1; k++) {
        double off = 1e-4 * k;
        sk_vec3 o0 = sk_vec3_make(0.0f, (float)(yn + 0.5 + off), (float)(zn - 0.5));
        assert_true(sk_terrain_raycast(&tz, o0, d45, 3.0f, &h));
        printf("grazing the nosing %+g m: hit (%.7f, %.7f) normal (%g, %g, %g)\n", off, h.point.z, h.point.y,
               h.normal.x, h.normal.y, h.normal.z);
        if (k == 0) {
            assert_true(fabs(h.point.z - zn) < 2e-6 && fabs(h.point.y - yn) < 2e-6);
            assert_true(h.normal.y == 1.0f || h.normal.z == -1.0f);
        } else if (k > 0) {
            assert_true(h.normal.y == 1.0f && fabs(h.point.y - yn) < 1e-6 && fabs(h.point.z - (zn + off)) < 2e-6);
        } else {
            assert_true(h.normal.z == -1.0f && fabs(h.point.z - zn) < 1e-6 && fabs(h.point.y - (yn + off)) < 2e-6);
        }
    }
    /* a horizontal ray exactly at a tread's height skims it and meets the next riser's foot */
    assert_true(sk_terrain_raycast(&tz, sk_vec3_make(0, (float)yn, (float)(zn + 0.05)), sk_vec3_make(0, 0, 1), 5.0f, &h));
    assert_true(h.normal.z == -1.0f && fabs(h.point.z - 4 * 0.28f) < 1e-6);
    /* a ray up the line through the nosings, from above tread 0, no distance
     * limit: it touches nosing 1 (the top of riser 1) and stops there */
    double slope = 0.17 / 0.28, l = sqrt(1 + slope * slope);
    bool got = sk_terrain_raycast(&tz, sk_vec3_make(0, (float)(0.17 + slope * 0.14), 0.14f),
                                  sk_vec3_make(0, (float)(slope / l), (float)(1 / l)), INFINITY, &h);
    printf("up the nosing line: %s at distance %.7f (closed form %.7f)\n", got ? "hit" : "no hit", got ? h.distance : 0.0,
           0.14 * l);
    assert_true(got && fabs(h.distance - 0.14 * l) < 1e-6 && fabs(h.point.z - 0.28) < 1e-6);
    /* bad options */
    sk_terrain_stairs_options bad = {.run = -0.2f};
    assert_int_equal(sk_terrain_stairs(&shz, &bad, &tz, &err), SK_ERR_INVALID_ARGUMENT);
}

static void test_ledge(void **state) {
    (void)state;
    sk_terrain_shape sh;
    sk_terrain t;
    sk_error err;
    sk_terrain_ledge_options o = {.height = 1.2f, .floor = 0.3f, .edge = {2.0f, 9.0f, 0.0f}, .direction = {1, 0, 0}};
    assert_int_equal(sk_terrain_ledge(&sh, &o, &t, &err), SK_OK);
    sk_terrain_hit h;
    assert_true(sk_terrain_height(&t, 1.99f, 5.0f, 3.0f, 5.0f, &h) && fabsf(h.point.y - 1.5f) < 1e-6f);
    assert_true(sk_terrain_height(&t, 2.01f, 5.0f, 3.0f, 5.0f, &h) && fabsf(h.point.y - 0.3f) < 1e-6f);
    /* the face, from the drop side: normal +direction */
    assert_true(sk_terrain_raycast(&t, sk_vec3_make(3.0f, 0.8f, 1.0f), sk_vec3_make(-1, 0, 0), 5.0f, &h));
    assert_true(fabsf(h.point.x - 2.0f) < 1e-6f && h.normal.x == 1.0f && fabsf(h.distance - 1.0f) < 1e-6f);
    /* above the floor but above the ledge too: a horizontal ray misses */
    assert_false(sk_terrain_raycast(&t, sk_vec3_make(3.0f, 1.6f, 1.0f), sk_vec3_make(-1, 0, 0), 50.0f, &h));
    stairs_ref q = {(double)0.3f + (double)1.2f, -(double)1.2f, 1.0, 2.0, 0.0, 1.0, 0.0, 1};
    run_stairs(&t, &q, "ledge (1.2 m above a floor at 0.3)", 3.0);
}

/* ---- bumps ---- */
static double bump_f(const sk_terrain_shape *sh, const double o[3], const double d[3], double t) {
    return (o[1] + t * d[1]) - sk_terrain_bumps_height(sh, (float)(o[0] + t * d[0]), (float)(o[2] + t * d[2]), NULL);
}

static void test_bumps(void **state) {
    (void)state;
    sk_terrain_shape sh, sh2, sh3;
    sk_terrain t, t2, t3;
    sk_error err;
    sk_terrain_bumps_options o = {.amplitude = 0.15f, .wavelength = 1.5f, .seed = 7, .base = 0.2f};
    assert_int_equal(sk_terrain_bumps(&sh, &o, &t, &err), SK_OK);
    assert_int_equal(sk_terrain_bumps(&sh2, &o, &t2, &err), SK_OK);
    o.seed = 8;
    assert_int_equal(sk_terrain_bumps(&sh3, &o, &t3, &err), SK_OK);
    /* heights stay within base +- amplitude; the same seed is the same ground,
     * another seed another; vertical rays land on the closed-form height with
     * the closed-form normal (a finite-difference check of it too) */
    double lo = INFINITY, hi = -INFINITY, diff = 0.0, worst_h = 0.0, worst_n = 0.0, worst_fd = 0.0;
    for (int i = 0; i < 5000; i++) {
        float x = (float)rr(-20, 20), z = (float)rr(-20, 20);
        sk_vec3 n;
        double y = sk_terrain_bumps_height(&sh, x, z, &n);
        lo = fmin(lo, y), hi = fmax(hi, y);
        assert_true(sk_terrain_bumps_height(&sh2, x, z, NULL) == (float)y);
        diff = fmax(diff, fabs(sk_terrain_bumps_height(&sh3, x, z, NULL) - y));
        sk_terrain_hit h;
        assert_true(sk_terrain_height(&t, x, z, 1.0f, 2.0f, &h));
        worst_h = fmax(worst_h, fabs(h.point.y - y));
        worst_n = fmax(worst_n, fmax(fabs(h.normal.x - n.x), fmax(fabs(h.normal.y - n.y), fabs(h.normal.z - n.z))));
        const double e = 1e-3;
        double gx = (sk_terrain_bumps_height(&sh, (float)(x + e), z, NULL) - sk_terrain_bumps_height(&sh, (float)(x - e), z, NULL)) / (2 * e);
        double gz = (sk_terrain_bumps_height(&sh, x, (float)(z + e), NULL) - sk_terrain_bumps_height(&sh, x, (float)(z - e), NULL)) / (2 * e);
        double l = sqrt(gx * gx + 1 + gz * gz);
        worst_fd = fmax(worst_fd, fabs(n.x + gx / l) + fabs(n.y - 1 / l) + fabs(n.z + gz / l));
    }
    printf("bumps: heights %.4f .. %.4f (base 0.2 +- 0.15), other seed differs by up to %.3f m, vertical rays: height "
           "error %.3g m, normal error %.3g, finite-difference normal %.3g\n",
           lo, hi, diff, worst_h, worst_n, worst_fd);
    assert_true(lo >= 0.05 - 1e-6 && hi <= 0.35 + 1e-6 && hi - lo > 0.15);
    assert_true(diff > 0.05);
    assert_true(worst_h < 1e-6 && worst_n < 1e-6 && worst_fd < 2e-3);
    /* slanted rays from above against a reference march (1 mm steps, then bisection) */
    int hits = 0, expected = 0, grazing = 0, n = 3000;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double ro[3] = {rr(-10, 10), rr(0.4, 2.5), rr(-10, 10)};
        sk_vec3 v = rnd_dir();
        if (v.y > -0.1f) v.y = -0.1f - v.y;
        double rd[3] = {v.x, v.y, v.z}, tmax = rr(0.0, 10.0);
        to_float(ro, rd);
        tmax = (float)tmax;
        ref_hit r = {0};
        double step = 1e-3, f0 = bump_f(&sh, ro, rd, 0.0);
        assert_true(f0 > 0.0);
        for (double tt = step;; tt += step) {
            double te = fmin(tt, tmax), f = bump_f(&sh, ro, rd, te);
            if (f <= 0.0) {
                double a = te - step, b = te;
                for (int k = 0; k < 60; k++) {
                    double m = 0.5 * (a + b);
                    if (bump_f(&sh, ro, rd, m) > 0.0) a = m;
                    else b = m;
                }
                r.hit = true, r.t = b;
                break;
            }
            if (te >= tmax) break;
        }
        sk_terrain_hit h;
        bool got = cast(&t, ro, rd, tmax, &h);
        assert_int_equal(got, r.hit);
        if (!got) continue;
        hits++;
        /* the reference evaluates heights in float: compare distances where the ray is not grazing */
        double cosi = fabs(h.normal.x * rd[0] + h.normal.y * rd[1] + h.normal.z * rd[2]);
        if (cosi >= 0.05) worst = fmax(worst, fabs(h.distance - r.t));
        else grazing++;
        sk_vec3 nn;
        float y = sk_terrain_bumps_height(&sh, h.point.x, h.point.z, &nn);
        assert_true(fabsf(h.point.y - y) < 2e-6f);
        assert_true(fabsf(h.normal.x - nn.x) < 1e-5f && fabsf(h.normal.y - nn.y) < 1e-5f && fabsf(h.normal.z - nn.z) < 1e-5f);
        expected++;
    }
    printf("bumps: %d of %d slanted rays hit as the reference march says, worst distance error %.3g m (%d grazing hits "
           "not compared)\n", hits, n, worst, grazing);
    assert_int_equal(hits, expected);
    assert_true(hits > 1000);
    assert_true(worst < 1e-5);
    /* a horizontal ray inside the slab with no limit ends (hit or not) */
    sk_terrain_hit h;
    (void)sk_terrain_raycast(&t, sk_vec3_make(0.0f, 0.2f, 0.0f), sk_vec3_make(1, 0, 0), INFINITY, &h);
    (void)sk_terrain_raycast(&t, sk_vec3_make(0.0f, 0.34f, 0.0f), sk_vec3_make(1, 0, 0), INFINITY, &h);
    o.wavelength = -1.0f;
    assert_int_equal(sk_terrain_bumps(&sh3, &o, &t3, &err), SK_ERR_INVALID_ARGUMENT);
}

/* ---- misses and hostile input, for every kind ---- */
static void test_misses_and_bad_input(void **state) {
    (void)state;
    sk_terrain_shape s[5];
    sk_terrain t[6];
    t[0] = sk_terrain_flat(&s[0], 0.0f);
    assert_int_equal(sk_terrain_ramp(&s[1], &(sk_terrain_ramp_options){.angle = 0.3f}, &t[1], NULL), SK_OK);
    assert_int_equal(sk_terrain_stairs(&s[2], NULL, &t[2], NULL), SK_OK);
    assert_int_equal(sk_terrain_bumps(&s[3], NULL, &t[3], NULL), SK_OK);
    assert_int_equal(sk_terrain_ledge(&s[4], NULL, &t[4], NULL), SK_OK);
    float quad[] = {-50, 0, -50, 50, 0, -50, 50, 0, 50, -50, 0, 50};
    uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sk_terrain_mesh *m;
    assert_int_equal(sk_terrain_mesh_create(quad, 4, idx, 2, NULL, NULL, &m, NULL), SK_OK);
    t[5] = sk_terrain_mesh_terrain(m);
    const float inf = INFINITY, nan = NAN;
    sk_vec3 down = {0, -1, 0}, up = {0, 1, 0}, o = {0.1f, 3.0f, 0.2f};
    int rejected = 0;
    for (int k = 0; k < 6; k++) {
        sk_terrain_hit h;
        assert_true(sk_terrain_raycast(&t[k], o, down, 10.0f, &h));
        assert_true(sk_terrain_raycast(&t[k], o, sk_vec3_make(0, -7, 0), 10.0f, &h)); /* not unit: normalised */
        assert_false(sk_terrain_raycast(&t[k], o, up, 10.0f, &h));                    /* pointing up */
        assert_false(sk_terrain_raycast(&t[k], o, down, 1.0f, &h));                   /* beyond max distance */
        assert_true(sk_terrain_raycast(&t[k], o, down, inf, &h));                     /* no limit */
        sk_vec3 bad_o[] = {{nan, 3, 0}, {0, inf, 0}, {0, 3, -inf}};
        sk_vec3 bad_d[] = {{nan, -1, 0}, {0, -inf, 0}, {0, 0, 0}};
        for (size_t i = 0; i < 3; i++) rejected += !sk_terrain_raycast(&t[k], bad_o[i], down, 10.0f, &h);
        for (size_t i = 0; i < 3; i++) rejected += !sk_terrain_raycast(&t[k], o, bad_d[i], 10.0f, &h);
        assert_true(sk_terrain_raycast(&t[k], o, sk_vec3_make(0, -1e-30f, 0), 10.0f, &h)); /* tiny but valid */
        assert_true(fabsf(h.distance - (3.0f - h.point.y)) < 1e-5f);
        rejected += !sk_terrain_raycast(&t[k], o, down, nan, &h);
        rejected += !sk_terrain_raycast(&t[k], o, down, -1.0f, &h);
        rejected += !sk_terrain_height(&t[k], nan, 0, 3, 10, &h);
        /* huge but finite values: no crash, no hang */
        (void)sk_terrain_raycast(&t[k], sk_vec3_make(3e38f, 3e38f, -3e38f), down, inf, &h);
        (void)sk_terrain_raycast(&t[k], o, sk_vec3_make(1.0f, -1e-38f, 0.0f), inf, &h);
        (void)sk_terrain_raycast(&t[k], o, sk_vec3_make(3e38f, -3e38f, 3e38f), 3e38f, &h);
        (void)sk_terrain_raycast(&t[k], sk_vec3_make(1e7f, 0.0f, 1e7f), sk_vec3_make(1.0f, 1e-7f, 1.0f), inf, &h);
    }
    printf("hostile input: %d of 54 bad casts rejected (6 terrains)\n", rejected);
    assert_int_equal(rejected, 6 * 9);
    sk_terrain none = {0};
    assert_false(sk_terrain_raycast(&none, o, down, 10.0f, NULL));
    assert_false(sk_terrain_raycast(NULL, o, down, 10.0f, NULL));
    /* the height bound: only the mesh has one; bad arguments refused */
    float yb = 7.0f;
    for (int k = 0; k < 5; k++) assert_false(sk_terrain_height_bound(&t[k], 0.1f, 0.2f, &yb));
    assert_true(yb == 7.0f); /* nothing written */
    assert_true(sk_terrain_height_bound(&t[5], 0.1f, 0.2f, &yb) && yb >= 0.0f && yb < 1e-4f);
    assert_true(sk_terrain_height_bound(&t[5], 60.0f, 0.2f, &yb) && yb == -INFINITY); /* off the mesh */
    assert_false(sk_terrain_height_bound(&t[5], nan, 0.2f, &yb));
    assert_false(sk_terrain_height_bound(&t[5], 0.1f, inf, &yb));
    assert_false(sk_terrain_height_bound(&t[5], 0.1f, 0.2f, NULL));
    assert_false(sk_terrain_height_bound(NULL, 0.1f, 0.2f, &yb));
    assert_false(sk_terrain_height_bound(&none, 0.1f, 0.2f, &yb));
    assert_true(sk_terrain_height_bound(&t[5], 3e38f, -3e38f, &yb) && yb == -INFINITY);
    sk_terrain_mesh_destroy(m);
}

/* ---- meshes of analytic terrains ---- */
typedef struct tri_list { float *v; uint32_t n, cap; } tri_list;
static void push_tri(tri_list *l, const double a[3], const double b[3], const double c[3]) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, (size_t)l->cap * 9 * sizeof(float));
    }
    float *v = l->v + (size_t)l->n * 9;
    for (int i = 0; i < 3; i++) v[i] = (float)a[i], v[3 + i] = (float)b[i], v[6 + i] = (float)c[i];
    l->n++;
}
/* quad in the (s, lateral) frame: p(s, y, l) = start + s dir + l side + y up */
typedef struct frame { double sx, sz, dx, dz; } frame;
static void at(const frame *f, double s, double y, double l, double out[3]) {
    out[0] = f->sx + s * f->dx - l * f->dz;
    out[1] = y;
    out[2] = f->sz + s * f->dz + l * f->dx;
}
static void push_quad(tri_list *lst, const frame *f, double s0, double y0, double s1, double y1, double half) {
    double a[3], b[3], c[3], d[3];
    at(f, s0, y0, -half, a), at(f, s1, y1, -half, b), at(f, s1, y1, half, c), at(f, s0, y0, half, d);
    push_tri(lst, a, b, c);
    push_tri(lst, a, c, d);
}

static void compare_mesh(const sk_terrain *analytic, const sk_terrain *mesh, const frame *f, double s_lo, double s_hi,
                         double half, double y_lo, double y_hi, const char *what) {
    int compared = 0, misses = 0, n = 20000;
    double worst = 0.0, worst_n = 0.0;
    for (int i = 0; i < n; i++) {
        double o[3], d[3], tmax;
        at(f, rr(s_lo, s_hi), rr(y_lo, y_hi), rr(-half, half), o);
        sk_vec3 v = rnd_dir();
        d[0] = v.x, d[1] = v.y, d[2] = v.z;
        tmax = rr(0.0, 10.0);
        sk_terrain_hit ha, hm;
        bool a = cast(analytic, o, d, tmax, &ha), m = cast(mesh, o, d, tmax, &hm);
        if (!a) {
            assert_false(m); /* the mesh is a part of the analytic surface */
            misses++;
            continue;
        }
        /* compare where the analytic hit lies on the meshed part, not at a grazing angle */
        double s = (ha.point.x - f->sx) * f->dx + (ha.point.z - f->sz) * f->dz;
        double l = -(ha.point.x - f->sx) * f->dz + (ha.point.z - f->sz) * f->dx;
        double cosi = fabs(ha.normal.x * d[0] + ha.normal.y * d[1] + ha.normal.z * d[2]);
        if (s < s_lo + 1e-3 || s > s_hi - 1e-3 || fabs(l) > half - 1e-3 || cosi < 0.05) continue;
        assert_true(m);
        compared++;
        worst = fmax(worst, fabs(ha.distance - hm.distance));
        worst = fmax(worst, fmax(fabs(ha.point.x - hm.point.x), fmax(fabs(ha.point.y - hm.point.y), fabs(ha.point.z - hm.point.z))));
        worst_n = fmax(worst_n, fmax(fabs(ha.normal.x - hm.normal.x), fmax(fabs(ha.normal.y - hm.normal.y), fabs(ha.normal.z - hm.normal.z))));
    }
    printf("%s: %d hits compared (%d misses agree), worst difference %.3g m, normals %.3g\n", what, compared, misses, worst,
           worst_n);
    assert_true(compared > 3000);
    assert_true(worst < 1e-5);
    assert_true(worst_n < 1e-5);
}

static void test_mesh_matches_analytic(void **state) {
    (void)state;
    sk_error err;
    /* ramp, 30 degrees along (3, 0, 4) from (1, 0.5, -2), 4 m long */
    sk_terrain_shape sh;
    sk_terrain ramp;
    sk_terrain_ramp_options ro = {.angle = (float)(30 * PI / 180), .start = {1.0f, 0.5f, -2.0f},
                                  .direction = {3.0f, 0.0f, 4.0f}, .length = 4.0f};
    assert_int_equal(sk_terrain_ramp(&sh, &ro, &ramp, &err), SK_OK);
    frame f = {1.0f, -2.0f, 0.6, 0.8};
    double half = 3.0, top = 0.5f + 4.0 * tan((double)ro.angle);
    tri_list l = {0};
    push_quad(&l, &f, -3.0, 0.5f, 0.0, 0.5f, half);
    for (int k = 0; k < 4; k++) /* the slope in 4 strips */
        push_quad(&l, &f, k, 0.5f + k * tan((double)ro.angle), k + 1, 0.5f + (k + 1) * tan((double)ro.angle), half);
    push_quad(&l, &f, 4.0, top, 7.0, top, half);
    sk_terrain_mesh *m;
    assert_int_equal(sk_terrain_mesh_create(l.v, l.n * 3, NULL, l.n, NULL, NULL, &m, &err), SK_OK);
    sk_terrain mt = sk_terrain_mesh_terrain(m);
    compare_mesh(&ramp, &mt, &f, -3.0, 7.0, half, -1.0, 4.5, "mesh of the 30-degree ramp vs the ramp");
    sk_terrain_mesh_destroy(m);
    l.n = 0;
    /* stairs: 10 risers of 0.17 / 0.28 along (1, 0, 2) */
    sk_terrain stairs;
    sk_terrain_stairs_options so = {.rise = 0.17f, .run = 0.28f, .start = {0.5f, 0.1f, -0.3f},
                                    .direction = {1.0f, 0.0f, 2.0f}, .count = 10};
    assert_int_equal(sk_terrain_stairs(&sh, &so, &stairs, &err), SK_OK);
    double dl = sqrt(5.0);
    frame g = {0.5f, -0.3f, 1.0 / dl, 2.0 / dl};
    double base = 0.1f, rise = 0.17f, run = 0.28f;
    push_quad(&l, &g, -2.0, base, 0.0, base, half);
    for (int k = 0; k < 10; k++) {
        push_quad(&l, &g, k * run, base + k * rise, k * run, base + (k + 1) * rise, half);
        push_quad(&l, &g, k * run, base + (k + 1) * rise, k == 9 ? 5.0 : (k + 1) * run, base + (k + 1) * rise, half);
    }
    assert_int_equal(sk_terrain_mesh_create(l.v, l.n * 3, NULL, l.n, NULL, NULL, &m, &err), SK_OK);
    mt = sk_terrain_mesh_terrain(m);
    compare_mesh(&stairs, &mt, &g, -2.0, 5.0, half, -0.5, 2.5, "mesh of 10 stairs vs the stairs");
    sk_terrain_mesh_info info = sk_terrain_mesh_get_info(m);
    assert_int_equal(info.triangle_count, l.n);
    assert_int_equal(info.degenerate_count, 0);
    sk_terrain_mesh_destroy(m);
    free(l.v);
}

/* ---- grid vs brute force ---- */
static void test_grid_vs_brute_force(void **state) {
    (void)state;
    /* a bumpy 60 x 60 grid, 600 random triangles above and through it, 20 degenerate ones */
    enum { G = 60 };
    tri_list l = {0};
    for (int i = 0; i < G; i++)
        for (int k = 0; k < G; k++) {
            double x0 = -15 + 0.5 * i, z0 = -15 + 0.5 * k;
            double h[4];
            for (int c = 0; c < 4; c++) h[c] = 0.3 * sin(0.7 * (x0 + 0.5 * (c & 1))) * cos(0.9 * (z0 + 0.5 * (c >> 1))) + rr(-0.02, 0.02);
            double a[3] = {x0, h[0], z0}, b[3] = {x0 + 0.5, h[1], z0}, c[3] = {x0, h[2], z0 + 0.5}, d[3] = {x0 + 0.5, h[3], z0 + 0.5};
            push_tri(&l, a, b, d);
            push_tri(&l, a, d, c);
        }
    for (int i = 0; i < 600; i++) {
        double a[3] = {rr(-16, 16), rr(-1, 3), rr(-16, 16)}, b[3], c[3];
        for (int k = 0; k < 3; k++) b[k] = a[k] + rr(-1.5, 1.5), c[k] = a[k] + rr(-1.5, 1.5);
        push_tri(&l, a, b, c);
    }
    for (int i = 0; i < 20; i++) {
        double a[3] = {floor(rr(-10, 10)), floor(rr(-1, 1)), floor(rr(-10, 10))}, b[3] = {a[0] + 1, a[1] + 1, a[2] + 1},
               c[3] = {a[0] + 2, a[1] + 2, a[2] + 2};
        push_tri(&l, a, i & 1 ? b : a, c); /* collinear or a repeated vertex */
    }
    sk_terrain_mesh *m;
    sk_error err;
    assert_int_equal(sk_terrain_mesh_create(l.v, l.n * 3, NULL, l.n, NULL, NULL, &m, &err), SK_OK);
    sk_terrain_mesh_info info = sk_terrain_mesh_get_info(m);
    printf("random mesh: %u triangles kept, %u degenerate dropped, grid %u x %u, %llu references\n", info.triangle_count,
           info.degenerate_count, info.cells_x, info.cells_z, (unsigned long long)info.references);
    assert_int_equal(info.triangle_count, G * G * 2 + 600);
    assert_int_equal(info.degenerate_count, 20);
    sk_terrain grid = sk_terrain_mesh_terrain(m), brute = sk_terrain_mesh_terrain_brute_force(m);
    int hits = 0, n = 6000, vertical_same = 0, vertical_hits = 0;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double o[3], d[3], tmax = rr(0, 40);
        int kind = i % 3;
        o[0] = rr(-18, 18), o[1] = rr(-2, 4), o[2] = rr(-18, 18);
        sk_vec3 v = rnd_dir();
        if (kind == 0) v = sk_vec3_make(0, -1, 0);             /* straight down */
        else if (kind == 1) v.y = 0.05f * v.y;                 /* near horizontal */
        d[0] = v.x, d[1] = v.y, d[2] = v.z;
        if (i % 7 == 0) tmax = INFINITY;
        sk_terrain_hit a, b;
        bool ga = cast(&grid, o, d, tmax, &a), gb = cast(&brute, o, d, tmax, &b);
        assert_int_equal(ga, gb);
        if (!ga) continue;
        hits++;
        worst = fmax(worst, fabs(a.distance - b.distance));
        assert_true(fabsf(a.point.x - b.point.x) < 1e-6f && fabsf(a.point.y - b.point.y) < 1e-6f &&
                    fabsf(a.point.z - b.point.z) < 1e-6f);
        /* straight down the grid takes the triangle's stored normal, brute
         * force computes it: the same bits (where both hit one triangle:
         * the same distance) */
        vertical_hits += kind == 0;
        if (kind == 0 && a.distance == b.distance) {
            assert_true(a.normal.x == b.normal.x && a.normal.y == b.normal.y && a.normal.z == b.normal.z);
            vertical_same++;
        }
    }
    printf("grid vs brute force: %d of %d rays hit, same hits, worst distance difference %.3g m; %d of %d vertical hits "
           "with the same normal\n",
           hits, n, worst, vertical_same, vertical_hits);
    assert_true(hits > 2000);
    assert_true(vertical_hits > 800 && vertical_same == vertical_hits);
    assert_true(worst < 1e-6);
    /* The height bound: never below a vertical ray's hit at the point
     * (from far above: the highest ground there), -infinity off the mesh. */
    int bounded = 0, off = 0;
    double slack = 0.0;
    for (int i = 0; i < 20000; i++) {
        float x = (float)rr(-20, 20), z = (float)rr(-20, 20), yb;
        assert_true(sk_terrain_height_bound(&grid, x, z, &yb));
        sk_terrain_hit h;
        if (sk_terrain_height(&brute, x, z, 100.0f, 200.0f, &h)) {
            assert_true(h.point.y <= yb);
            slack = fmax(slack, yb - h.point.y);
            bounded++;
        } else if (yb == -INFINITY) {
            off++;
        }
    }
    printf("height bound: above the ground at %d points (at most %.2f m above), -infinity at %d points off the mesh\n",
           bounded, slack, off);
    assert_true(bounded > 10000 && off > 3000 && slack < 6.0);
    sk_terrain_mesh_destroy(m);
    free(l.v);
}

/* ---- vertical rays on shared edges and vertices: no crack ---- */
/* Casts a vertical ray at exactly (x, z) through the grid and by brute force:
 * both hit, at the same distance and point; counts the cases. */
static void crack_ray(const sk_terrain *grid, const sk_terrain *brute, float x, float z, double y_expect, double *worst,
                      int *rays) {
    sk_terrain_hit a, b;
    bool ga = sk_terrain_height(grid, x, z, 5.0f, 10.0f, &a), gb = sk_terrain_height(brute, x, z, 5.0f, 10.0f, &b);
    if (!ga || !gb) printf("crack at (%.9g, %.9g): grid %d, brute force %d\n", x, z, ga, gb);
    assert_true(ga && gb);
    assert_true(a.distance == b.distance && a.point.x == b.point.x && a.point.y == b.point.y && a.point.z == b.point.z);
    assert_true(a.point.x == x && a.point.z == z && a.normal.y > 0.0f);
    if (!isnan(y_expect)) *worst = fmax(*worst, fabs(a.point.y - y_expect));
    (*rays)++;
}

static void test_mesh_vertical_rays_on_edges(void **state) {
    (void)state;
    /* A: a 24 x 24 bumpy grid of 0.25 m squares (exact in float), diagonals in
     * both directions alternately: rays exactly at every vertex, at the
     * midpoints of the axis-aligned edges and of the diagonals, and at random
     * points of the axis-aligned edges. B: the same grid with its vertices
     * jittered (no edge axis-aligned): rays exactly at every vertex. Each
     * under several grid densities, so cell borders fall in various places. */
    enum { G = 24 };
    const double h0 = 0.25;
    for (int jitter = 0; jitter < 2; jitter++) {
        float vx[G + 1][G + 1], vy[G + 1][G + 1], vz[G + 1][G + 1];
        for (int i = 0; i <= G; i++)
            for (int k = 0; k <= G; k++) {
                double x = -3.0 + h0 * i, z = -2.5 + h0 * k;
                if (jitter && i > 0 && i < G && k > 0 && k < G) x += rr(-0.08, 0.08), z += rr(-0.08, 0.08);
                vx[i][k] = (float)x, vz[i][k] = (float)z;
                vy[i][k] = (float)(0.4 * sin(0.9 * x) * cos(1.3 * z) + rr(-0.05, 0.05));
            }
        tri_list l = {0};
        for (int i = 0; i < G; i++)
            for (int k = 0; k < G; k++) {
                double p[4][3];
                for (int c = 0; c < 4; c++) {
                    int ii = i + (c & 1), kk = k + (c >> 1);
                    p[c][0] = vx[ii][kk], p[c][1] = vy[ii][kk], p[c][2] = vz[ii][kk];
                }
                if ((i + k) & 1) push_tri(&l, p[0], p[1], p[3]), push_tri(&l, p[0], p[3], p[2]);
                else push_tri(&l, p[0], p[1], p[2]), push_tri(&l, p[1], p[3], p[2]);
            }
        const float densities[4] = {0.3f, 1.0f, 2.0f, 7.0f};
        for (int di = 0; di < 4; di++) {
            sk_terrain_mesh_options opt = {.triangles_per_cell = densities[di]};
            sk_terrain_mesh *m;
            sk_error err;
            assert_int_equal(sk_terrain_mesh_create(l.v, l.n * 3, NULL, l.n, &opt, NULL, &m, &err), SK_OK);
            sk_terrain grid = sk_terrain_mesh_terrain(m), brute = sk_terrain_mesh_terrain_brute_force(m);
            double worst = 0.0;
            int rays = 0;
            for (int i = 0; i <= G; i++)
                for (int k = 0; k <= G; k++) {
                    crack_ray(&grid, &brute, vx[i][k], vz[i][k], vy[i][k], &worst, &rays);
                    if (jitter) continue;
                    if (i < G) { /* along x, on an edge of constant z */
                        crack_ray(&grid, &brute, (float)((vx[i][k] + vx[i + 1][k]) * 0.5), vz[i][k],
                                  0.5 * ((double)vy[i][k] + vy[i + 1][k]), &worst, &rays);
                        crack_ray(&grid, &brute, (float)rr(vx[i][k], vx[i + 1][k]), vz[i][k], NAN, &worst, &rays);
                    }
                    if (k < G) {
                        crack_ray(&grid, &brute, vx[i][k], (float)((vz[i][k] + vz[i][k + 1]) * 0.5),
                                  0.5 * ((double)vy[i][k] + vy[i][k + 1]), &worst, &rays);
                        crack_ray(&grid, &brute, vx[i][k], (float)rr(vz[i][k], vz[i][k + 1]), NAN, &worst, &rays);
                    }
                    if (i < G && k < G) { /* the diagonal's midpoint */
                        bool main = (i + k) & 1;
                        double ya = main ? vy[i][k] : vy[i + 1][k], yb = main ? vy[i + 1][k + 1] : vy[i][k + 1];
                        crack_ray(&grid, &brute, (float)((vx[i][k] + vx[i + 1][k]) * 0.5),
                                  (float)((vz[i][k] + vz[i][k + 1]) * 0.5), 0.5 * (ya + yb), &worst, &rays);
                    }
                }
            sk_terrain_mesh_info info = sk_terrain_mesh_get_info(m);
            printf("%s grid, %u x %u cells: %d vertical rays on vertices and edges all hit, as brute force; worst height "
                   "error %.3g m\n",
                   jitter ? "jittered" : "regular", info.cells_x, info.cells_z, rays, worst);
            assert_true(worst < 1e-6);
            sk_terrain_mesh_destroy(m);
        }
        free(l.v);
    }
}

/* ---- a mesh from an sk_asset built in code ---- */
static void test_mesh_from_asset(void **state) {
    (void)state;
    sk_error err;
    sk_asset *a;
    assert_int_equal(sk_asset_create_empty(NULL, &a, &err), SK_OK);
    /* joint 0: root at (10, 0, 0) turned 90 degrees about +Y, holding a triangle;
     * joint 1: its child at (0, 2, 0), scale 2, holding a unit quad (indexed);
     * joint 2: a root outside the default scene, holding the quad too;
     * joint 0 also holds a line primitive (mode 1) and one with missing data. */
    int32_t parents[3] = {-1, 0, -1};
    sk_transform rest[3];
    for (int i = 0; i < 3; i++) rest[i] = sk_transform_identity();
    rest[0].t = sk_vec3_make(10, 0, 0);
    rest[0].r = sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), (float)(PI / 2));
    rest[1].t = sk_vec3_make(0, 2, 0);
    rest[1].s = sk_vec3_make(2, 2, 2);
    rest[2].t = sk_vec3_make(0, 5, 0);
    sk_skeleton_desc sd = {.joint_count = 3, .parents = parents, .rest = rest};
    assert_int_equal(sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, &err), SK_OK);
    a->node_count = 3;
    float *quad = sk_asset_alloc(a, sizeof(float) * 12);
    const float qv[12] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1};
    memcpy(quad, qv, sizeof qv);
    uint32_t *qi = sk_asset_alloc(a, sizeof(uint32_t) * 6);
    const uint32_t qiv[6] = {0, 1, 2, 0, 2, 3};
    memcpy(qi, qiv, sizeof qiv);
    float *tri = sk_asset_alloc(a, sizeof(float) * 9);
    const float tv[9] = {0, 0, 0, 0, 0, 1, 1, 0, 0};
    memcpy(tri, tv, sizeof tv);
    sk_primitive *prims = sk_asset_alloc(a, sizeof *prims * 4);
    prims[0] = (sk_primitive){.mode = 4, .vertex_count = 4, .positions = quad, .index_count = 6, .indices = qi, .material = -1};
    prims[1] = (sk_primitive){.mode = 4, .vertex_count = 3, .positions = tri, .material = -1};
    prims[2] = (sk_primitive){.mode = 1, .vertex_count = 3, .positions = tri, .material = -1};
    prims[3] = (sk_primitive){.mode = 4, .material = -1, .missing_data = "buffer 0 has no data"};
    sk_mesh *meshes = sk_asset_alloc(a, sizeof *meshes * 2);
    meshes[0] = (sk_mesh){.name = "quad", .primitive_count = 1, .primitives = &prims[0]};
    meshes[1] = (sk_mesh){.name = "tri", .primitive_count = 3, .primitives = &prims[1]};
    int32_t *jm = sk_asset_alloc(a, sizeof(int32_t) * 3), *js = sk_asset_alloc(a, sizeof(int32_t) * 3);
    jm[0] = 1, jm[1] = 0, jm[2] = 0;
    js[0] = js[1] = js[2] = -1;
    a->meshes = meshes, a->mesh_count = 2, a->joint_mesh = jm, a->joint_skin = js;
    uint32_t *roots = sk_asset_alloc(a, sizeof(uint32_t));
    roots[0] = 0;
    sk_scene *scene = sk_asset_alloc(a, sizeof *scene);
    scene->name = "", scene->root_count = 1, scene->roots = roots;
    a->scenes = scene, a->scene_count = 1, a->default_scene = 0;
    assert_int_equal(sk_asset_validate(a, &err), SK_OK);

    sk_terrain_mesh *m;
    uint32_t skipped = 99;
    assert_int_equal(sk_terrain_mesh_from_asset(a, NULL, NULL, &m, &skipped, &err), SK_OK);
    sk_terrain_mesh_info info = sk_terrain_mesh_get_info(m);
    assert_int_equal(info.triangle_count, 3); /* quad (2) + triangle (1); joint 2 is outside the scene */
    assert_int_equal(skipped, 2);             /* the line and the missing-data primitive */
    /* joint 1's world: T(10,0,0) R_y(90) T(0,2,0) S(2): the quad's corner (1,0,1)
     * goes to R_y(90) (2,2,2) + (10,0,0) = (12, 2, -2); the quad spans
     * x in [10, 12], z in [-2, 0] at y = 2. R_y(90) maps (x, y, z) to (z, y, -x). */
    printf("asset mesh: bounds (%g %g %g) .. (%g %g %g)\n", info.min.x, info.min.y, info.min.z, info.max.x, info.max.y,
           info.max.z);
    assert_true(fabsf(info.min.x - 10) < 1e-5f && fabsf(info.max.x - 12) < 1e-5f);
    assert_true(fabsf(info.min.y - 0) < 1e-5f && fabsf(info.max.y - 2) < 1e-5f);
    assert_true(fabsf(info.min.z + 2) < 1e-5f && fabsf(info.max.z - 0) < 1e-5f);
    sk_terrain t = sk_terrain_mesh_terrain(m);
    sk_terrain_hit h;
    assert_true(sk_terrain_height(&t, 11.5f, -0.5f, 10.0f, 20.0f, &h));
    assert_true(fabsf(h.point.y - 2.0f) < 1e-5f && fabsf(h.normal.y - 1.0f) < 1e-6f);
    /* under the quad, the triangle of joint 0: (0,0,0),(0,0,1),(1,0,0) -> (10,0,0),(11,0,0),(10,0,-1) */
    assert_true(sk_terrain_raycast(&t, sk_vec3_make(10.2f, 1.0f, -0.2f), sk_vec3_make(0, -1, 0), 5.0f, &h));
    assert_true(fabsf(h.point.y) < 1e-6f);
    assert_false(sk_terrain_raycast(&t, sk_vec3_make(10.8f, 1.0f, -0.8f), sk_vec3_make(0, -1, 0), 5.0f, &h));
    /* joint 2's quad at y = 5 over [0, 1]^2 is not in the scene */
    assert_false(sk_terrain_height(&t, 0.5f, 0.5f, 10.0f, 20.0f, &h));
    sk_terrain_mesh_destroy(m);
    /* without a default scene every node counts: joint 2's quad appears */
    a->default_scene = -1;
    assert_int_equal(sk_terrain_mesh_from_asset(a, NULL, NULL, &m, NULL, &err), SK_OK);
    assert_int_equal(sk_terrain_mesh_get_info(m).triangle_count, 5);
    t = sk_terrain_mesh_terrain(m);
    assert_true(sk_terrain_height(&t, 0.5f, 0.5f, 10.0f, 20.0f, &h) && fabsf(h.point.y - 5.0f) < 1e-6f);
    sk_terrain_mesh_destroy(m);
    /* an invalid asset is refused with sk_asset_validate's reason */
    qi[2] = 7;
    assert_int_equal(sk_terrain_mesh_from_asset(a, NULL, NULL, &m, NULL, &err), SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "index 7"));
    assert_null(m);
    sk_asset_destroy(a);
}

/* The mannequin's skinned mesh: at the rest pose (its bind pose) the palette
 * is the identity up to rounding, so the terrain's triangles are the mesh's
 * own positions: the same bounds, and a vertical ray down the middle meets
 * the head's top within the bounds' top. Rays at a mid height through the
 * body from the front and back hit surfaces facing them. */
static void test_mesh_from_skinned_asset(void **state) {
    (void)state;
    sk_asset *a;
    sk_error err;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint64_t tris = 0;
    for (uint32_t m = 0; m < a->mesh_count; m++)
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) {
            const sk_primitive *pr = &a->meshes[m].primitives[p];
            tris += (pr->indices ? pr->index_count : pr->vertex_count) / 3;
            for (uint32_t v = 0; v < pr->vertex_count; v++)
                for (int k = 0; k < 3; k++) {
                    lo[k] = fmin(lo[k], pr->positions[3 * v + k]);
                    hi[k] = fmax(hi[k], pr->positions[3 * v + k]);
                }
        }
    sk_terrain_mesh *m;
    assert_int_equal(sk_terrain_mesh_from_asset(a, NULL, NULL, &m, NULL, &err), SK_OK);
    sk_terrain_mesh_info info = sk_terrain_mesh_get_info(m);
    printf("mannequin as terrain: %u triangles (%llu in the mesh, %u degenerate), bounds y %.4f .. %.4f (mesh %.4f .. %.4f)\n",
           info.triangle_count, (unsigned long long)tris, info.degenerate_count, info.min.y, info.max.y, lo[1], hi[1]);
    assert_int_equal(info.triangle_count + info.degenerate_count, tris);
    assert_true(fabs(info.min.x - lo[0]) < 1e-4 && fabs(info.max.x - hi[0]) < 1e-4);
    assert_true(fabs(info.min.y - lo[1]) < 1e-4 && fabs(info.max.y - hi[1]) < 1e-4);
    assert_true(fabs(info.min.z - lo[2]) < 1e-4 && fabs(info.max.z - hi[2]) < 1e-4);
    sk_terrain t = sk_terrain_mesh_terrain(m);
    sk_terrain_hit h;
    assert_true(sk_terrain_height(&t, 0.0f, 0.0f, 3.0f, 3.0f, &h));
    assert_true(h.point.y <= info.max.y + 1e-6f && h.point.y > info.max.y - 0.05f);
    assert_true(sk_terrain_raycast(&t, sk_vec3_make(0, 1.0f, 2.0f), sk_vec3_make(0, 0, -1), 5.0f, &h));
    assert_true(h.normal.z > 0.0f && h.point.z > 0.0f);
    assert_true(sk_terrain_raycast(&t, sk_vec3_make(0, 1.0f, -2.0f), sk_vec3_make(0, 0, 1), 5.0f, &h));
    assert_true(h.normal.z < 0.0f && h.point.z < 0.0f);
    sk_terrain_mesh_destroy(m);
    sk_asset_destroy(a);
}

/* ---- degenerate, empty and invalid meshes ---- */
static void test_mesh_degenerate_and_empty(void **state) {
    (void)state;
    sk_error err;
    sk_terrain_mesh *m;
    assert_int_equal(sk_terrain_mesh_create(NULL, 0, NULL, 0, NULL, NULL, &m, &err), SK_OK);
    sk_terrain_mesh_info info = sk_terrain_mesh_get_info(m);
    assert_int_equal(info.triangle_count, 0);
    sk_terrain t = sk_terrain_mesh_terrain(m), b = sk_terrain_mesh_terrain_brute_force(m);
    sk_terrain_hit h;
    assert_false(sk_terrain_raycast(&t, sk_vec3_make(0, 1, 0), sk_vec3_make(0, -1, 0), INFINITY, &h));
    assert_false(sk_terrain_raycast(&b, sk_vec3_make(0, 1, 0), sk_vec3_make(0, -1, 0), INFINITY, &h));
    sk_terrain_mesh_destroy(m);
    /* only degenerate triangles: all dropped, nothing hit */
    float deg[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, /* collinear */ 0, 0, 0, 0, 0, 0, 0, 0, 1, /* repeated */
                   1, 1, 1, 1, 1, 1, 1, 1, 1, /* a point */ 0, 0, 0, 1, 0, 0, 0, 0, 1 /* a good one */};
    assert_int_equal(sk_terrain_mesh_create(deg, 12, NULL, 3, NULL, NULL, &m, &err), SK_OK);
    info = sk_terrain_mesh_get_info(m);
    assert_int_equal(info.triangle_count, 0);
    assert_int_equal(info.degenerate_count, 3);
    t = sk_terrain_mesh_terrain(m);
    assert_false(sk_terrain_raycast(&t, sk_vec3_make(0.5f, 1, 0), sk_vec3_make(0, -1, 0), 5.0f, &h));
    sk_terrain_mesh_destroy(m);
    assert_int_equal(sk_terrain_mesh_create(deg, 12, NULL, 4, NULL, NULL, &m, &err), SK_OK);
    info = sk_terrain_mesh_get_info(m);
    assert_int_equal(info.triangle_count, 1);
    assert_int_equal(info.degenerate_count, 3);
    t = sk_terrain_mesh_terrain(m);
    assert_true(sk_terrain_raycast(&t, sk_vec3_make(0.25f, 1, 0.25f), sk_vec3_make(0, -1, 0), 5.0f, &h));
    assert_true(h.distance == 1.0f && h.normal.y == 1.0f);
    /* a vertical triangle (zero extent in z): a grid of one row */
    sk_terrain_mesh_destroy(m);
    float wall[] = {0, 0, 0, 4, 0, 0, 0, 3, 0};
    assert_int_equal(sk_terrain_mesh_create(wall, 3, NULL, 1, NULL, NULL, &m, &err), SK_OK);
    t = sk_terrain_mesh_terrain(m);
    assert_true(sk_terrain_raycast(&t, sk_vec3_make(1, 1, -2), sk_vec3_make(0, 0, 1), 5.0f, &h));
    assert_true(fabsf(h.distance - 2.0f) < 1e-6f && h.normal.z == -1.0f);
    sk_terrain_mesh_destroy(m);
    /* invalid input */
    uint32_t idx[3] = {0, 1, 5};
    assert_int_equal(sk_terrain_mesh_create(wall, 3, idx, 1, NULL, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "index 5"));
    assert_null(m);
    wall[4] = NAN;
    assert_int_equal(sk_terrain_mesh_create(wall, 3, NULL, 1, NULL, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "not finite"));
    assert_int_equal(sk_terrain_mesh_create(wall, 2, NULL, 1, NULL, NULL, &m, &err), SK_ERR_INVALID_ARGUMENT);
}

/* ---- allocation failure ---- */
typedef struct counting { size_t calls, fail_at, live; } counting;
static void *c_alloc(void *user, size_t size) {
    counting *c = user;
    if (++c->calls == c->fail_at) return NULL;
    void *p = malloc(size);
    if (p) c->live += size;
    return p;
}
static void c_free(void *user, void *p, size_t size) {
    counting *c = user;
    if (p) c->live -= size;
    free(p);
}

static void test_mesh_alloc_failure(void **state) {
    (void)state;
    float quad[] = {-5, 0, -5, 5, 0, -5, 5, 0, 5, -5, 0, 5};
    uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    counting c = {0};
    sk_allocator al = {.alloc = c_alloc, .free = c_free, .user = &c};
    sk_terrain_mesh *m;
    assert_int_equal(sk_terrain_mesh_create(quad, 4, idx, 2, NULL, &al, &m, NULL), SK_OK);
    size_t calls = c.calls;
    assert_true(c.live > 0 && c.live == sk_terrain_mesh_get_info(m).bytes);
    sk_terrain_mesh_destroy(m);
    assert_int_equal(c.live, 0);
    for (size_t k = 1; k <= calls; k++) {
        c = (counting){.fail_at = k};
        sk_error err;
        assert_int_equal(sk_terrain_mesh_create(quad, 4, idx, 2, NULL, &al, &m, &err), SK_ERR_OUT_OF_MEMORY);
        assert_null(m);
        assert_int_equal(c.live, 0);
    }
    printf("mesh creation: %zu allocations, each failing in turn: out of memory, nothing left\n", calls);
    assert_true(calls == 7); /* the mesh, its triangles, the cells' starts, heights, references, their bounds and normals */
    /* from an asset (the skinned mannequin): pose, matrices, palette, then the mesh */
    sk_asset *a;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    c = (counting){0};
    assert_int_equal(sk_terrain_mesh_from_asset(a, NULL, &al, &m, NULL, NULL), SK_OK);
    calls = c.calls;
    sk_terrain_mesh_destroy(m);
    assert_int_equal(c.live, 0);
    for (size_t k = 1; k <= calls; k++) {
        c = (counting){.fail_at = k};
        assert_int_equal(sk_terrain_mesh_from_asset(a, NULL, &al, &m, NULL, NULL), SK_ERR_OUT_OF_MEMORY);
        assert_null(m);
        assert_int_equal(c.live, 0);
    }
    printf("mesh from the mannequin: %zu allocations, each failing in turn: out of memory, nothing left\n", calls);
    assert_true(calls >= 8);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_ramp),
        cmocka_unit_test(test_stairs),
        cmocka_unit_test(test_ledge),
        cmocka_unit_test(test_bumps),
        cmocka_unit_test(test_misses_and_bad_input),
        cmocka_unit_test(test_mesh_matches_analytic),
        cmocka_unit_test(test_grid_vs_brute_force),
        cmocka_unit_test(test_mesh_vertical_rays_on_edges),
        cmocka_unit_test(test_mesh_from_asset),
        cmocka_unit_test(test_mesh_from_skinned_asset),
        cmocka_unit_test(test_mesh_degenerate_and_empty),
        cmocka_unit_test(test_mesh_alloc_failure),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
