/* The --terrain option's parser (cli/terrain_spec.c), shared by `render` and
 * the coming `locomote` commands: every form with its parameters and with its
 * defaults (heights checked by vertical rays at known points), every error
 * message, and a .glb terrain (a stairs mesh built in code and written with
 * the .glb writer) that gives the same heights as the built-in stairs. */
#include "support.h"
#include "terrain_spec.h"
#include "terrain_asset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cli_terrain *parse_ok(const char *spec, cli_terrain_kind kind) {
    cli_terrain *t = NULL;
    sk_error err = {0};
    sk_result r = cli_terrain_parse(spec, &t, &err);
    if (r != SK_OK) fprintf(stderr, "%s: %s\n", spec, err.message);
    assert_int_equal(r, SK_OK);
    assert_non_null(t);
    assert_int_equal(t->kind, kind);
    printf("%-22s %s\n", spec, t->description);
    return t;
}

static float height(const cli_terrain *t, float x, float z) {
    sk_terrain_hit h;
    assert_true(sk_terrain_height(&t->terrain, x, z, 100.0f, 1000.0f, &h));
    return h.point.y;
}

static void near(float got, double want, double tol, const char *what) {
    if (!(fabs(got - want) <= tol)) fprintf(stderr, "%s: got %.9g, want %.9g\n", what, (double)got, want);
    assert_true(fabs(got - want) <= tol);
}

static void test_forms(void **st) {
    (void)st;
    const double D = 3.14159265358979323846 / 180.0;
    cli_terrain *t;
    /* flat[:H] */
    t = parse_ok("flat", CLI_TERRAIN_FLAT);
    near(height(t, 3, -2), 0, 0, "flat");
    cli_terrain_destroy(t);
    t = parse_ok("flat:0.3", CLI_TERRAIN_FLAT);
    near(height(t, -1, 5), 0.3f, 0, "flat:0.3");
    cli_terrain_destroy(t);
    t = parse_ok("flat:-2.5", CLI_TERRAIN_FLAT);
    near(height(t, 0, 0), -2.5f, 0, "flat:-2.5");
    cli_terrain_destroy(t);
    /* ramp[:DEG]: flat for z < 1, then tan(DEG) (z - 1), along +Z, the same at every x */
    t = parse_ok("ramp", CLI_TERRAIN_RAMP);
    assert_true(t->params[0] == 15.0);
    near(height(t, 0, 0.5f), 0, 1e-6, "ramp z 0.5");
    near(height(t, 2, 3), tan(15 * D) * 2, 1e-5, "ramp default z 3");
    cli_terrain_destroy(t);
    t = parse_ok("ramp:30", CLI_TERRAIN_RAMP);
    near(height(t, -4, 3), tan(30 * D) * 2, 1e-5, "ramp:30 z 3");
    near(height(t, 0, 0.99f), 0, 1e-6, "ramp:30 before the start");
    cli_terrain_destroy(t);
    /* ramp:DEG,LEN: the slope for LEN m, then flat at the top (the crest at z = 1 + LEN) */
    t = parse_ok("ramp:30,2", CLI_TERRAIN_RAMP);
    near(height(t, 0, 2), tan(30 * D), 1e-5, "ramp:30,2 on the slope");
    near(height(t, 0, 3.5f), tan(30 * D) * 2, 1e-5, "ramp:30,2 on the top");
    near(height(t, 0, 10), tan(30 * D) * 2, 1e-5, "ramp:30,2 far on the top");
    cli_terrain_destroy(t);
    t = parse_ok("ramp:-20", CLI_TERRAIN_RAMP);
    near(height(t, 0, 2), -tan(20 * D), 1e-5, "ramp:-20 descends");
    assert_non_null(strstr(t->description, "descending"));
    cli_terrain_destroy(t);
    t = parse_ok("ramp:89.5", CLI_TERRAIN_RAMP);
    cli_terrain_destroy(t);
    /* stairs[:RISE,RUN]: first riser at z = 1, treads RUN deep */
    t = parse_ok("stairs", CLI_TERRAIN_STAIRS);
    assert_true(t->params[0] == 0.17 && t->params[1] == 0.28);
    near(height(t, 0, 0.9f), 0, 0, "stairs before the first riser");
    near(height(t, 0, 1.1f), 0.17f, 1e-6, "stairs first tread");
    near(height(t, 0.5f, 1.0f + 0.28f * 3 + 0.1f), 0.17f * 4, 1e-5, "stairs fourth tread");
    cli_terrain_destroy(t);
    t = parse_ok("stairs:0.2,0.3", CLI_TERRAIN_STAIRS);
    near(height(t, 0, 1.05f), 0.2f, 1e-6, "stairs:0.2,0.3 first tread");
    near(height(t, 0, 1.35f), 0.4f, 1e-6, "stairs:0.2,0.3 second tread");
    assert_non_null(strstr(t->description, "stairs up"));
    cli_terrain_destroy(t);
    t = parse_ok("stairs:-0.17,0.28", CLI_TERRAIN_STAIRS);
    near(height(t, 0, 1.1f), -0.17f, 1e-6, "stairs down");
    assert_non_null(strstr(t->description, "stairs down"));
    cli_terrain_destroy(t);
    /* bumps[:AMP,SEED]: within +-AMP of 0, not flat, the seed changes the ground */
    float hb[2][64];
    const char *bspec[2] = {"bumps", "bumps:0.1,7"};
    for (int s = 0; s < 2; s++) {
        t = parse_ok(bspec[s], CLI_TERRAIN_BUMPS);
        float lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < 64; k++) {
            hb[s][k] = height(t, -3.0f + 0.1f * k, 0.37f * k - 5.0f);
            lo = fminf(lo, hb[s][k]), hi = fmaxf(hi, hb[s][k]);
        }
        assert_true(lo >= -0.1f - 1e-6f && hi <= 0.1f + 1e-6f && hi - lo > 0.03f);
        cli_terrain_destroy(t);
    }
    assert_true(memcmp(hb[0], hb[1], sizeof hb[0]) != 0);
    t = parse_ok("bumps", CLI_TERRAIN_BUMPS);
    assert_true(t->params[0] == 0.1 && t->params[1] == 1.0);
    cli_terrain_destroy(t);
    t = parse_ok("bumps:0.4,4294967295", CLI_TERRAIN_BUMPS);
    float mx = 0;
    for (int k = 0; k < 200; k++) mx = fmaxf(mx, fabsf(height(t, 0.13f * k - 13, 0.07f * k)));
    assert_true(mx <= 0.4f + 1e-6f && mx > 0.1f);
    cli_terrain_destroy(t);
    /* ledge[:HEIGHT]: y = 0 up to z = 1, the floor at -HEIGHT after */
    t = parse_ok("ledge", CLI_TERRAIN_LEDGE);
    near(height(t, 0, 0.5f), 0, 0, "ledge top");
    near(height(t, 0, 1.5f), -1, 1e-6, "ledge default floor");
    cli_terrain_destroy(t);
    t = parse_ok("ledge:0.8", CLI_TERRAIN_LEDGE);
    near(height(t, 2, 0.99f), 0, 1e-6, "ledge:0.8 top");
    near(height(t, 2, 1.01f), -0.8f, 1e-6, "ledge:0.8 floor");
    cli_terrain_destroy(t);
    cli_terrain_destroy(NULL);
}

static void expect_error(const char *spec, const char *message) {
    cli_terrain *t = (cli_terrain *)&t;
    sk_error err = {0};
    sk_result r = cli_terrain_parse(spec, &t, &err);
    if (r == SK_OK || !strstr(err.message, message))
        fprintf(stderr, "spec '%s': result %d, message '%s', expected '%s'\n", spec, r, err.message, message);
    assert_int_not_equal(r, SK_OK);
    assert_null(t);
    assert_non_null(strstr(err.message, message));
}

static void test_errors(void **st) {
    (void)st;
    expect_error("ramp:95", "--terrain ramp:95: the angle must be within (-90, 90) degrees");
    expect_error("ramp:-90", "--terrain ramp:-90: the angle must be within (-90, 90) degrees");
    expect_error("ramp:abc", "--terrain ramp:abc: expected ramp:DEG");
    expect_error("ramp:", "--terrain ramp:: expected ramp:DEG");
    expect_error("ramp:10,2,3", "--terrain ramp:10,2,3: expected ramp:DEG or ramp:DEG,LENGTH");
    expect_error("ramp:10,-2", "--terrain ramp:10,-2: the length must be 0 (endless) to 10 km");
    expect_error("ramp:inf", "expected ramp:DEG");
    expect_error("ramp:10deg", "expected ramp:DEG");
    expect_error("", "--terrain: expected flat, ramp:DEG[,LEN], stairs:RISE,RUN, bumps:AMP,SEED, ledge:HEIGHT or a .glb/.gltf file");
    expect_error("hill", "--terrain hill: unknown terrain: expected flat, ramp:DEG[,LEN]");
    expect_error("Stairs", "--terrain Stairs: unknown terrain");
    expect_error("flat:nan", "--terrain flat:nan: expected flat:H (metres)");
    expect_error("flat:1e5", "--terrain flat:1e5: the height must be within 10 km of 0");
    expect_error("stairs:0.1", "--terrain stairs:0.1: expected stairs:RISE,RUN (metres)");
    expect_error("stairs:0.1,0.2,0.3", "expected stairs:RISE,RUN (metres)");
    expect_error("stairs:0.1,", "expected stairs:RISE,RUN (metres)");
    expect_error("stairs:0,0.28", "--terrain stairs:0,0.28: the rise must be non-zero and within 10 m");
    expect_error("stairs:11,0.28", "the rise must be non-zero and within 10 m");
    expect_error("stairs:0.17,0", "--terrain stairs:0.17,0: the run must be positive and within 100 m");
    expect_error("stairs:0.17,-0.28", "the run must be positive and within 100 m");
    expect_error("bumps:0.1", "--terrain bumps:0.1: expected bumps:AMP,SEED (metres, an integer seed)");
    expect_error("bumps:0,1", "--terrain bumps:0,1: the amplitude must be positive and within 100 m");
    expect_error("bumps:-0.1,1", "the amplitude must be positive and within 100 m");
    expect_error("bumps:0.1,1.5", "--terrain bumps:0.1,1.5: the seed must be an integer from 0 to 4294967295");
    expect_error("bumps:0.1,-1", "the seed must be an integer from 0 to 4294967295");
    expect_error("bumps:0.1,4294967296", "the seed must be an integer from 0 to 4294967295");
    expect_error("ledge:0", "--terrain ledge:0: the height must be positive (and within 10 km)");
    expect_error("ledge:-1", "the height must be positive (and within 10 km)");
    expect_error("ledge:1,2", "--terrain ledge:1,2: expected ledge:HEIGHT (metres)");
    expect_error("/nonexistent/ground.glb", "--terrain /nonexistent/ground.glb: cannot open");
    expect_error("/nonexistent/ground.gltf", "/nonexistent/ground.gltf");
}

/* A .glb terrain: the stairs mesh, written by the .glb writer, read back by the parser. */
static void test_glb(void **st) {
    (void)st;
    char dir[] = "/tmp/sk_terrain_spec_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], empty_path[256];
    snprintf(path, sizeof path, "%s/stairs.GLB", dir);
    snprintf(empty_path, sizeof empty_path, "%s/empty.glb", dir);
    sk_asset *a = terrain_stairs_asset(0.17f, 0.28f, 1.0f, -3, 3, -3, 3, 0.5f);
    assert_non_null(a);
    sk_error err = {0};
    if (sk_glb_write_file(a, path, NULL, &err) != SK_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(sk_glb_write_file(a, path, NULL, &err), SK_OK);
    sk_asset_destroy(a);
    cli_terrain *t = parse_ok(path, CLI_TERRAIN_MESH);
    assert_non_null(t->asset);
    assert_non_null(t->mesh);
    assert_non_null(strstr(t->description, "triangles"));
    cli_terrain *ref = parse_ok("stairs:0.17,0.28", CLI_TERRAIN_STAIRS);
    double worst = 0;
    int n = 0;
    for (int k = 0; k < 400; k++) { /* away from the risers (float placement), the same heights */
        float x = -2.5f + 0.0123f * k, z = -2.5f + 0.0137f * k;
        float s = (z - 1.0f) / 0.28f;
        if (fabsf(s - roundf(s)) < 0.01f) continue;
        worst = fmax(worst, fabs(height(t, x, z) - height(ref, x, z)));
        n++;
    }
    printf("glb stairs vs built-in stairs: %d points, worst height difference %.3g m\n", n, worst);
    assert_true(n > 350);
    assert_true(worst < 1e-5);
    cli_terrain_destroy(ref);
    cli_terrain_destroy(t);
    /* a file without triangles */
    sk_asset *e = NULL;
    assert_int_equal(sk_asset_create_empty(NULL, &e, &err), SK_OK);
    int32_t parents[1] = {-1};
    sk_skeleton_desc sd = {.joint_count = 1, .parents = parents};
    assert_int_equal(sk_skeleton_create(&sd, sk_asset_allocator(e), &e->skeleton, &err), SK_OK);
    e->node_count = 1;
    int32_t *jm = sk_asset_alloc(e, sizeof(int32_t)), *js = sk_asset_alloc(e, sizeof(int32_t));
    uint32_t *n2j = sk_asset_alloc(e, sizeof(uint32_t)), *j2n = sk_asset_alloc(e, sizeof(uint32_t));
    jm[0] = -1, js[0] = -1;
    e->joint_mesh = jm, e->joint_skin = js, e->node_to_joint = n2j, e->joint_to_node = j2n;
    e->default_scene = -1;
    assert_int_equal(sk_glb_write_file(e, empty_path, NULL, &err), SK_OK);
    sk_asset_destroy(e);
    char want[300];
    snprintf(want, sizeof want, "--terrain %s: the file has no triangles in its default scene", empty_path);
    expect_error(empty_path, want);
    remove(path);
    remove(empty_path);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_glb),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
