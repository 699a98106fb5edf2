/* skelanim bench terrain: nanoseconds per ray for each built-in terrain and
 * for a triangle-mesh terrain (a bumpy grid built in code, about 100k
 * triangles by default) through its grid and by brute force. Two kinds of
 * rays: "down" (straight down from 0.5-2 m above the ground at random x, z:
 * what foot placement casts) and "slant" (from 0.5-2 m above, random
 * directions 10-80 degrees below the horizon, up to 5 m), over 20 x 20 m;
 * for the mesh also "down_local": straight down within 1 x 1 m, the cache-warm
 * case of one character's feet (the 20 m spread touches 5.8 MB of grid and
 * triangles at random). One JSON line per terrain and kind.
 *
 *   skelanim bench terrain [--rays N] [--grid-size N] [--seed S]
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64*: the rays, from --seed. */
static double bt_rnd(uint64_t *rng) {
    *rng ^= *rng >> 12;
    *rng ^= *rng << 25;
    *rng ^= *rng >> 27;
    return (double)((*rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct bt_ray { sk_vec3 o, d; float max; } bt_ray;

static void bt_emit(cJSON *o) {
    char *s = cJSON_PrintUnformatted(o);
    if (s) puts(s);
    cJSON_free(s);
    cJSON_Delete(o);
    fflush(stdout);
}

/* Rays over [-half, half]^2 starting 0.5-2 m above the ground height at
 * their (x, z) (found with a long vertical ray). */
static void bt_make_rays(const sk_terrain *t, bt_ray *rays, uint32_t n, float half, bool slant, uint64_t *rng) {
    for (uint32_t i = 0; i < n; i++) {
        float x = (float)((2 * bt_rnd(rng) - 1) * half), z = (float)((2 * bt_rnd(rng) - 1) * half);
        sk_terrain_hit h;
        float ground = sk_terrain_height(t, x, z, 100.0f, 200.0f, &h) ? h.point.y : 0.0f;
        rays[i].o = sk_vec3_make(x, ground + (float)(0.5 + 1.5 * bt_rnd(rng)), z);
        if (slant) {
            double el = (10.0 + 70.0 * bt_rnd(rng)) * 3.14159265358979 / 180.0, az = 2 * 3.14159265358979 * bt_rnd(rng);
            rays[i].d = sk_vec3_make((float)(cos(el) * cos(az)), (float)-sin(el), (float)(cos(el) * sin(az)));
            rays[i].max = 5.0f;
        } else {
            rays[i].d = sk_vec3_make(0.0f, -1.0f, 0.0f);
            rays[i].max = 3.0f;
        }
    }
}

static void bt_run(const char *name, const sk_terrain *t, const char *method, const bt_ray *rays, uint32_t n,
                   cJSON *extra) {
    /* repeat until 0.2 s, take the best of the repeats */
    double best = INFINITY;
    uint32_t hits = 0, reps = 0;
    double start = cli_now();
    do {
        uint32_t h = 0;
        double t0 = cli_now();
        for (uint32_t i = 0; i < n; i++) {
            sk_terrain_hit hit;
            h += sk_terrain_raycast(t, rays[i].o, rays[i].d, rays[i].max, &hit);
        }
        double dt = cli_now() - t0;
        if (dt < best) best = dt;
        hits = h;
        reps++;
    } while (cli_now() - start < 0.2 && reps < 1000);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "bench", "terrain");
    cJSON_AddStringToObject(o, "terrain", name);
    if (method) cJSON_AddStringToObject(o, "method", method);
    cJSON_AddNumberToObject(o, "rays", n);
    cJSON_AddNumberToObject(o, "hits", hits);
    cJSON_AddNumberToObject(o, "repeats", reps);
    cJSON_AddItemToObject(o, "ns_per_ray", cli_num(best / n * 1e9));
    if (extra) {
        cJSON *it = extra->child;
        while (it) {
            cJSON *next = it->next;
            cJSON_AddItemToObject(o, it->string, cJSON_Duplicate(it, 1));
            it = next;
        }
    }
    bt_emit(o);
}

typedef struct bt_args {
    uint32_t rays, grid, seed;
} bt_args;

static int bench_terrain(int argc, char **argv) {
    bt_args args = {0, 0, 0};
    int rc = cli_parse(&cli_cmd_bench_terrain, argc, argv, &args, NULL);
    if (rc != CLI_CONTINUE) return rc;
    uint32_t nrays = args.rays, grid = args.grid, seed = args.seed;
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 1);
    bt_ray *rays = malloc(sizeof *rays * nrays);
    if (!rays) return 1;
    sk_error err;
    sk_terrain_shape sh[5];
    sk_terrain t[5];
    const char *names[5] = {"flat", "ramp 30deg", "stairs 0.17/0.28", "bumps 0.1/2.0", "ledge 1.0"};
    t[0] = sk_terrain_flat(&sh[0], 0.0f);
    sk_terrain_ramp_options ro = {.angle = 30.0f * 3.14159265f / 180.0f, .start = {0, 0, -10}, .length = 0};
    sk_terrain_stairs_options so = {.start = {0, 0, -10}};
    sk_terrain_bumps_options bo = {.seed = seed};
    sk_terrain_ledge_options lo = {0};
    if (sk_terrain_ramp(&sh[1], &ro, &t[1], &err) || sk_terrain_stairs(&sh[2], &so, &t[2], &err) ||
        sk_terrain_bumps(&sh[3], &bo, &t[3], &err) || sk_terrain_ledge(&sh[4], &lo, &t[4], &err)) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        free(rays);
        return 1;
    }
    for (int k = 0; k < 5; k++)
        for (int slant = 0; slant < 2; slant++) {
            bt_make_rays(&t[k], rays, nrays, 10.0f, slant, &rng);
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "kind", slant ? "slant" : "down");
            bt_run(names[k], &t[k], NULL, rays, nrays, x);
            cJSON_Delete(x);
        }
    /* the mesh: a grid x grid bumpy height field over 20 x 20 m, two triangles per cell */
    uint32_t nv = (grid + 1) * (grid + 1);
    float *pos = malloc(sizeof(float) * 3 * nv);
    uint32_t *idx = malloc(sizeof(uint32_t) * 6 * grid * grid);
    if (!pos || !idx) {
        free(pos), free(idx), free(rays);
        return 1;
    }
    for (uint32_t i = 0; i <= grid; i++)
        for (uint32_t k = 0; k <= grid; k++) {
            float x = -10.0f + 20.0f * (float)i / (float)grid, z = -10.0f + 20.0f * (float)k / (float)grid;
            float *p = pos + 3 * (i * (grid + 1) + k);
            p[0] = x, p[1] = sk_terrain_bumps_height(&sh[3], x, z, NULL), p[2] = z;
        }
    for (uint32_t i = 0; i < grid; i++)
        for (uint32_t k = 0; k < grid; k++) {
            uint32_t a = i * (grid + 1) + k, b = a + 1, c = a + grid + 1, d = c + 1, *q = idx + 6 * (i * grid + k);
            q[0] = a, q[1] = c, q[2] = d, q[3] = a, q[4] = d, q[5] = b;
        }
    sk_terrain_mesh *m = NULL;
    double t0 = cli_now();
    if (sk_terrain_mesh_create(pos, nv, idx, 2 * grid * grid, NULL, NULL, &m, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        free(pos), free(idx), free(rays);
        return 1;
    }
    double build_ms = (cli_now() - t0) * 1e3;
    sk_terrain_mesh_info info = sk_terrain_mesh_get_info(m);
    sk_terrain mg = sk_terrain_mesh_terrain(m), mb = sk_terrain_mesh_terrain_brute_force(m);
    /* brute force is O(triangles): fewer rays */
    uint32_t nbrute = nrays / 100 ? nrays / 100 : 1;
    for (int kind = 0; kind < 3; kind++) {
        bool slant = kind == 1;
        bt_make_rays(&mg, rays, nrays, kind == 2 ? 0.5f : 9.5f, slant, &rng);
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "kind", kind == 2 ? "down_local" : (slant ? "slant" : "down"));
        cJSON_AddNumberToObject(x, "triangles", info.triangle_count);
        cJSON_AddItemToObject(x, "grid", cJSON_CreateIntArray((const int[]){(int)info.cells_x, (int)info.cells_z}, 2));
        cJSON_AddNumberToObject(x, "references", (double)info.references);
        cJSON_AddNumberToObject(x, "bytes", (double)info.bytes);
        cJSON_AddItemToObject(x, "build_ms", cli_num(build_ms));
        bt_run("mesh", &mg, "grid", rays, nrays, x);
        bt_run("mesh", &mb, "brute_force", rays, nbrute, x);
        /* the two agree on these rays */
        uint32_t differ = 0;
        for (uint32_t i = 0; i < nbrute; i++) {
            sk_terrain_hit a, b;
            bool ha = sk_terrain_raycast(&mg, rays[i].o, rays[i].d, rays[i].max, &a);
            bool hb = sk_terrain_raycast(&mb, rays[i].o, rays[i].d, rays[i].max, &b);
            differ += ha != hb || (ha && fabsf(a.distance - b.distance) > 1e-6f);
        }
        if (differ) fprintf(stderr, "skelanim: bench terrain: grid and brute force differ on %u rays\n", differ);
        cJSON_Delete(x);
    }
    sk_terrain_mesh_destroy(m);
    free(pos);
    free(idx);
    free(rays);
    return 0;
}

static const cli_opt bt_opts[] = {
    {"--rays", CLI_INT(bt_args, rays), .meta = "N", .min = 1, .max = 10000000, .dflt = "20000",
     .help = "rays of each kind per terrain"},
    {"--grid-size", CLI_INT(bt_args, grid), .meta = "N", .min = 1, .max = 4000, .dflt = "224",
     .help = "the mesh terrain: an N x N grid of 2 N^2 triangles"},
    {"--seed", CLI_INT(bt_args, seed), .meta = "S", .min = 0, .max = UINT32_MAX, .dflt = "2009",
     .help = "the seed of the rays and of the bumps"},
};
const cli_command cli_cmd_bench_terrain = {
    .name = "bench terrain",
    .run = bench_terrain,
    .summary = "ns per ray cast on the built-in terrains and a triangle mesh",
    .about = "Nanoseconds per ray for each built-in terrain and for a triangle-mesh terrain "
             "through its grid and by brute force, rays straight down and slanted; one JSON line "
             "per terrain and kind of ray.",
    .opts = bt_opts,
    .nopts = CLI_COUNT(bt_opts),
};
