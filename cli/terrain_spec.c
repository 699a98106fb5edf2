/* The --terrain option (see terrain_spec.h). */
#include "terrain_spec.h"
#include "course.h"
#include "parse_number.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_terrain_usage[] =
    "  --terrain SPEC: the ground (the character stands on it at frame 0, under its root):\n"
    "            flat[:H]           the plane y = H (default 0)\n"
    "            ramp[:DEG[,LEN]]   flat to z = 1 m, then rising along +Z at DEG degrees (default 15;\n"
    "                               negative descends; within (-90, 90)); with LEN, for LEN m (horizontally),\n"
    "                               then flat at the top (a crest at z = 1 + LEN m)\n"
    "            stairs[:RISE,RUN]  flat to z = 1 m, then stairs along +Z, first riser at z = 1 m\n"
    "                               (default 0.17,0.28 m; a negative RISE goes down)\n"
    "            bumps[:AMP,SEED]   seeded smooth bumps within +-AMP m of y = 0 (default 0.1,1)\n"
    "            ledge[:HEIGHT]     y = 0 to z = 1 m, a drop of HEIGHT m there (default 1)\n"
    "            course             a 16 x 28 m triangle-mesh course built in code: ramps up 10 and\n"
    "                               down 20 degrees, stairs up and down, bumps (skelanim export-course)\n"
    "            FILE.glb|FILE.gltf the triangles of the file's default scene (rest pose)\n";

static bool ends_with(const char *s, const char *e) {
    size_t n = strlen(s), m = strlen(e);
    if (n < m) return false;
    for (size_t i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != e[i]) return false;
    }
    return true;
}

/* One number of a comma-separated list: strict (no trailing junk, finite). */
static bool number(const char *s, size_t n, double *out) {
    return cli_number(s, n, CLI_NUM_REAL, -DBL_MAX, DBL_MAX, out, NULL, 0); /* the tool's one parser; ranges below */
}

/* Splits "A,B" (or "A") into up to `want` numbers; returns the count or -1. */
static int numbers(const char *s, double *out, int want) {
    int k = 0;
    for (;;) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        if (k == want || !number(s, n, &out[k])) return -1;
        k++;
        if (!c) return k;
        s = c + 1;
    }
}

void cli_terrain_destroy(cli_terrain *t) {
    if (!t) return;
    sk_terrain_mesh_destroy(t->mesh);
    sk_asset_destroy(t->asset);
    free(t);
}

static sk_result bad(const char *spec, sk_error *err, const char *what) {
    return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "--terrain %s: %s", spec, what);
}

sk_result cli_terrain_parse(const char *spec, cli_terrain **out, sk_error *err) {
    *out = NULL;
    if (!spec || !spec[0])
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "--terrain: expected flat, ramp:DEG[,LEN], stairs:RISE,RUN, bumps:AMP,SEED, ledge:HEIGHT or a "
                            ".glb/.gltf file");
    cli_terrain *t = calloc(1, sizeof *t);
    if (!t) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "--terrain %s: out of memory", spec);
    sk_error e = {0};
    sk_result r = SK_OK;
    bool course = !strcmp(spec, "course");
    if (course || ends_with(spec, ".glb") || ends_with(spec, ".gltf")) {
        t->kind = CLI_TERRAIN_MESH;
        if (course) {
            if ((r = cli_course_asset(&t->asset, &e)) != SK_OK) {
                sk_error_set(err, r, "--terrain course: %s", e.message);
                goto fail;
            }
        } else if ((r = sk_gltf_load_file(spec, NULL, &t->asset, &e)) != SK_OK) {
            sk_error_set(err, r, "--terrain %s", e.message); /* the reader's message names the file */
            goto fail;
        }
        uint32_t skipped = 0;
        if ((r = sk_terrain_mesh_from_asset(t->asset, NULL, NULL, &t->mesh, &skipped, &e)) != SK_OK) {
            sk_error_set(err, r, "--terrain %s: %s", spec, e.message);
            goto fail;
        }
        sk_terrain_mesh_info info = sk_terrain_mesh_get_info(t->mesh);
        if (info.triangle_count == 0) {
            r = bad(spec, err, "the file has no triangles in its default scene");
            goto fail;
        }
        t->terrain = sk_terrain_mesh_terrain(t->mesh);
        snprintf(t->description, sizeof t->description,
                 "mesh %s: %u triangles over x %.3g..%.3g, y %.3g..%.3g, z %.3g..%.3g m", spec, info.triangle_count,
                 (double)info.min.x, (double)info.max.x, (double)info.min.y, (double)info.max.y, (double)info.min.z,
                 (double)info.max.z);
        *out = t;
        return SK_OK;
    }
    static const struct {
        const char *name;
        cli_terrain_kind kind;
        int count;          /* numbers after the colon */
        double dflt[2];
        const char *form;
    } kinds[] = {
        {"flat", CLI_TERRAIN_FLAT, 1, {0, 0}, "flat:H (metres)"},
        {"ramp", CLI_TERRAIN_RAMP, 2, {15, 0}, "ramp:DEG or ramp:DEG,LENGTH (degrees, metres)"},
        {"stairs", CLI_TERRAIN_STAIRS, 2, {0.17, 0.28}, "stairs:RISE,RUN (metres)"},
        {"bumps", CLI_TERRAIN_BUMPS, 2, {0.1, 1}, "bumps:AMP,SEED (metres, an integer seed)"},
        {"ledge", CLI_TERRAIN_LEDGE, 1, {1, 0}, "ledge:HEIGHT (metres)"},
    };
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    int which = -1;
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++)
        if (strlen(kinds[k].name) == nlen && !strncmp(spec, kinds[k].name, nlen)) which = k;
    if (which < 0) {
        r = bad(spec, err,
                "unknown terrain: expected flat, ramp:DEG[,LEN], stairs:RISE,RUN, bumps:AMP,SEED, ledge:HEIGHT or a "
                ".glb/.gltf file");
        goto fail;
    }
    t->kind = kinds[which].kind;
    t->params[0] = kinds[which].dflt[0], t->params[1] = kinds[which].dflt[1];
    if (colon) {
        double v[2];
        int n = numbers(colon + 1, v, kinds[which].count);
        bool optional_second = t->kind == CLI_TERRAIN_RAMP && n == 1; /* ramp:DEG: endless */
        if (n != kinds[which].count && !optional_second) {
            char msg[160];
            snprintf(msg, sizeof msg, "expected %s", kinds[which].form);
            r = bad(spec, err, msg);
            goto fail;
        }
        for (int k = 0; k < n; k++) t->params[k] = v[k];
    }
    double p0 = t->params[0], p1 = t->params[1];
    const sk_vec3 start = {0.0f, 0.0f, 1.0f}, plus_z = {0.0f, 0.0f, 1.0f};
    switch (t->kind) {
    case CLI_TERRAIN_FLAT:
        if (fabs(p0) > 1e4) { r = bad(spec, err, "the height must be within 10 km of 0"); goto fail; }
        t->terrain = sk_terrain_flat(&t->shape, (float)p0);
        snprintf(t->description, sizeof t->description, "flat at y = %g m", p0);
        break;
    case CLI_TERRAIN_RAMP: {
        if (!(fabs(p0) < 90.0)) { r = bad(spec, err, "the angle must be within (-90, 90) degrees"); goto fail; }
        if (!(p1 >= 0.0) || p1 > 1e4) { r = bad(spec, err, "the length must be 0 (endless) to 10 km"); goto fail; }
        sk_terrain_ramp_options o = {.angle = (float)(p0 * 3.14159265358979323846 / 180.0), .start = start,
                                     .direction = plus_z, .length = (float)p1};
        r = sk_terrain_ramp(&t->shape, &o, &t->terrain, &e);
        if (p1 > 0)
            snprintf(t->description, sizeof t->description,
                     "ramp of %g degrees: flat at y = 0 for z < 1 m, %s along +Z from z = 1 m for %g m, then flat "
                     "at y = %.3g m (the crest at z = %g m)",
                     p0, p0 < 0 ? "descending" : "rising", p1, p1 * tan(p0 * 3.14159265358979323846 / 180.0), 1 + p1);
        else
            snprintf(t->description, sizeof t->description,
                     "ramp of %g degrees: flat at y = 0 for z < 1 m, %s along +Z from z = 1 m", p0,
                     p0 < 0 ? "descending" : "rising");
        break;
    }
    case CLI_TERRAIN_STAIRS: {
        if (p0 == 0.0 || fabs(p0) > 10.0) { r = bad(spec, err, "the rise must be non-zero and within 10 m"); goto fail; }
        if (!(p1 > 0.0) || p1 > 100.0) { r = bad(spec, err, "the run must be positive and within 100 m"); goto fail; }
        sk_terrain_stairs_options o = {.rise = (float)p0, .run = (float)p1, .start = start, .direction = plus_z};
        r = sk_terrain_stairs(&t->shape, &o, &t->terrain, &e);
        snprintf(t->description, sizeof t->description,
                 "stairs %s: rise %g m, run %g m, first riser at z = 1 m, along +Z", p0 < 0 ? "down" : "up", fabs(p0), p1);
        break;
    }
    case CLI_TERRAIN_BUMPS: {
        if (!(p0 > 0.0) || p0 > 100.0) { r = bad(spec, err, "the amplitude must be positive and within 100 m"); goto fail; }
        if (p1 < 0.0 || p1 > 4294967295.0 || p1 != floor(p1)) {
            r = bad(spec, err, "the seed must be an integer from 0 to 4294967295");
            goto fail;
        }
        sk_terrain_bumps_options o = {.amplitude = (float)p0, .seed = (uint32_t)p1};
        r = sk_terrain_bumps(&t->shape, &o, &t->terrain, &e);
        snprintf(t->description, sizeof t->description, "bumps within +-%g m of y = 0, seed %.0f, wavelength 2 m", p0, p1);
        break;
    }
    case CLI_TERRAIN_LEDGE: {
        if (!(p0 > 0.0) || p0 > 1e4) { r = bad(spec, err, "the height must be positive (and within 10 km)"); goto fail; }
        sk_terrain_ledge_options o = {.height = (float)p0, .floor = (float)-p0, .edge = start, .direction = plus_z};
        r = sk_terrain_ledge(&t->shape, &o, &t->terrain, &e);
        snprintf(t->description, sizeof t->description,
                 "ledge: y = 0 for z < 1 m, a drop of %g m at z = 1 m, the floor at y = %g m", p0, -p0);
        break;
    }
    case CLI_TERRAIN_MESH: break;
    }
    if (r != SK_OK) {
        sk_error_set(err, r, "--terrain %s: %s", spec, e.message);
        goto fail;
    }
    *out = t;
    return SK_OK;
fail:
    cli_terrain_destroy(t);
    return r != SK_OK ? r : SK_ERR_INVALID_ARGUMENT;
}
