/* Terrains drawn by the renderer (render/terrain.c, skr_draw_terrain), as
 * `skelanim render --terrain` draws them:
 * - the height field of the stairs is made of flat treads and vertical risers
 *   only: every triangle is horizontal at a tread's height or vertical on a
 *   riser's line (within 1 mm), and the risers' walls span the whole area;
 * - a 30 degree ramp drawn off-screen: the top edge of its silhouette, column
 *   by column, lies where the camera projects the ramp's far edge (within 1 px);
 * - a stairs mesh built in code, written as .glb and loaded through the
 *   --terrain parser, draws the same picture as the built-in stairs' height
 *   field over the same area;
 * - `skelanim render @mannequin --terrain FILE.glb` writes an image.
 * No GL context is a failure, not a skip (make test installs Mesa), as in
 * tests/test_render.c. */
#include "support.h"
#include "skr.h"
#include "terrain_spec.h"
#include "terrain_asset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { W = 320, H = 240 };

static skr_headless *hd;
static skr_renderer *rn;

static int setup(void **st) {
    (void)st;
    sk_error err = {0};
    hd = skr_headless_create(W, H, 0, &err);
    if (!hd) {
        fprintf(stderr, "no off-screen GL context: %s\n", err.message);
        return -1;
    }
    skr_headless_bind(hd);
    if (skr_renderer_create(&rn, &err) != SK_OK) {
        fprintf(stderr, "renderer: %s\n", err.message);
        return -1;
    }
    return 0;
}

static int teardown(void **st) {
    (void)st;
    skr_renderer_destroy(rn);
    skr_headless_destroy(hd);
    return 0;
}

static const float BLACK[3] = {0, 0, 0};

static void draw(const skr_camera *cam, const skr_terrain *t, unsigned char *rgb) {
    skr_frame_desc fd = {cam, {0, 0, 0}, false, 0, 0, {0, 0}};
    skr_begin_frame(rn, &fd);
    skr_draw_terrain(rn, t, NULL, 0, BLACK);
    skr_headless_read(hd, rgb);
}

/* With SK_TERRAIN_IMAGES=DIR the images are kept there (to look at). */
static void keep(const char *name, const unsigned char *rgb) {
    const char *dir = getenv("SK_TERRAIN_IMAGES");
    if (!dir || !dir[0]) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    skr_write_image(path, rgb, W, H, NULL);
}

static bool lit(const unsigned char *p) { return p[0] + p[1] + p[2] > 12; }

static void check_stairs(const char *spec, float rise, float run) {
    cli_terrain *ct = NULL;
    sk_error err = {0};
    assert_int_equal(cli_terrain_parse(spec, &ct, &err), SK_OK);
    skr_terrain_area area = {-1, -0.5f, 1, 2.5f, 5, -5, 0.04f};
    skr_terrain *t = NULL;
    assert_int_equal(skr_terrain_create_heightfield(&ct->terrain, &area, &t, &err), SK_OK);
    uint32_t n = 0;
    const float *v = skr_terrain_vertices(t, &n);
    int flat = 0, walls = 0, other = 0;
    double wall_len[8] = {0}, worst_riser = 0, worst_tread = 0;
    for (uint32_t k = 0; k < n; k++) {
        const float *a = v + k * 18, *b = a + 6, *c = a + 12;
        float ymin = fminf(a[1], fminf(b[1], c[1])), ymax = fmaxf(a[1], fmaxf(b[1], c[1]));
        if (ymax - ymin < 1e-5f) { /* a tread (or the floor): at the stairs' height under its centre */
            float zc = (a[2] + b[2] + c[2]) / 3.0f;
            float want = zc < 1.0f ? 0.0f : rise * (floorf((zc - 1.0f) / run) + 1.0f);
            worst_tread = fmax(worst_tread, fabs(ymin - want));
            flat++;
        } else if (fabsf(a[4]) < 1e-6f && fabsf(a[2] - b[2]) < 1e-6f && fabsf(a[2] - c[2]) < 1e-6f) {
            /* a wall on a riser line z = 1 + k run, between the treads k rise and (k + 1) rise */
            float s = (a[2] - 1.0f) / run;
            int r = (int)lrintf(s);
            worst_riser = fmax(worst_riser, fabs(a[2] - (1.0f + r * run)));
            assert_true(r >= 0 && r < 8);
            assert_true(ymin > r * rise - 1e-4f && ymax < (r + 1) * rise + 1e-4f);
            /* each wall quad is two triangles: count the x-extent of the upper-left ones once */
            float xmin = fminf(a[0], fminf(b[0], c[0])), xmax = fmaxf(a[0], fmaxf(b[0], c[0]));
            wall_len[r] += 0.5 * (xmax - xmin);
            walls++;
        } else other++;
    }
    printf("%s height field: %u triangles: %d flat, %d on risers, %d other; treads within %.2g m of their "
           "height, risers within %.2g m of their line; wall width per riser:", spec, n, flat, walls, other, worst_tread,
           worst_riser);
    for (int r = 0; r < 6; r++) printf(" %.4f", wall_len[r]);
    printf(" m\n");
    assert_int_equal(other, 0);
    assert_true(worst_tread < 1e-5);
    assert_true(worst_riser < 1e-3); /* the bisection stops at 1 mm */
    for (int r = 0; r < 6; r++) assert_true(fabs(wall_len[r] - 2.0) < 1e-3); /* risers 0..5 lie in z < 2.5 */
    skr_terrain_destroy(t);
    cli_terrain_destroy(ct);
}

static void test_stairs_geometry(void **st) {
    (void)st;
    check_stairs("stairs:0.17,0.28", 0.17f, 0.28f);
    check_stairs("stairs:0.03,0.28", 0.03f, 0.28f); /* a 3 cm step: less than the 4 cm spacing */
    /* smooth ground has no walls: bumps of up to 0.4 m, wavelengths 1 to 2 m */
    cli_terrain *ct = NULL;
    sk_error err = {0};
    assert_int_equal(cli_terrain_parse("bumps:0.4,5", &ct, &err), SK_OK);
    skr_terrain_area area = {-2, -2, 2, 2, 5, -5, 0.04f};
    skr_terrain *t = NULL;
    assert_int_equal(skr_terrain_create_heightfield(&ct->terrain, &area, &t, &err), SK_OK);
    uint32_t n = 0;
    const float *v = skr_terrain_vertices(t, &n);
    uint32_t walls = 0;
    double worst = 0;
    for (uint32_t k = 0; k < n * 3; k++) {
        const float *p = v + k * 6;
        if (fabsf(p[4]) < 1e-3f) walls++;
        worst = fmax(worst, fabs(p[1] - sk_terrain_bumps_height(&ct->shape, p[0], p[2], NULL)));
    }
    printf("bumps:0.4,5 height field: %u triangles, %u vertices with a horizontal normal (walls), vertices within "
           "%.2g m of the closed-form height\n", n, walls, worst);
    assert_int_equal(n, 2u * 100u * 100u);
    assert_int_equal(walls, 0);
    assert_true(worst < 1e-5);
    skr_terrain_destroy(t);
    cli_terrain_destroy(ct);
}

/* A ramp rising away from the camera: its far edge is the top of the silhouette. */
static void test_ramp_edge(void **st) {
    (void)st;
    cli_terrain *ct = NULL;
    sk_error err = {0};
    assert_int_equal(cli_terrain_parse("ramp:30", &ct, &err), SK_OK);
    const float x0 = -1, x1 = 1, z0 = -1, z1 = 3;
    const float top = tanf(30.0f * 3.14159265f / 180.0f) * (z1 - 1.0f);
    skr_terrain_area area = {x0, z0, x1, z1, 10, -10, 0};
    skr_terrain *t = NULL;
    assert_int_equal(skr_terrain_create_heightfield(&ct->terrain, &area, &t, &err), SK_OK);
    skr_camera cam = {0};
    float bmin[3] = {x0, 0, z0}, bmax[3] = {x1, top, z1};
    skr_camera_frame(&cam, bmin, bmax, 180.0f, 20.0f, W, H);
    unsigned char *rgb = malloc(W * H * 3);
    draw(&cam, t, rgb);
    keep("ramp30.png", rgb);
    float pa[2], pb[2];
    const float A[3] = {x0, top, z1}, B[3] = {x1, top, z1};
    assert_true(skr_camera_project(&cam, A, &pa[0], &pa[1]) && skr_camera_project(&cam, B, &pb[0], &pb[1]));
    if (pa[0] > pb[0]) {
        float tmp[2] = {pa[0], pa[1]};
        pa[0] = pb[0], pa[1] = pb[1], pb[0] = tmp[0], pb[1] = tmp[1];
    }
    int cols = 0;
    double worst = 0;
    for (int x = (int)ceilf(pa[0]) + 2; x < (int)floorf(pb[0]) - 2; x++) {
        int row = -1;
        for (int y = 0; y < H && row < 0; y++)
            if (lit(rgb + 3 * (y * W + x))) row = y;
        assert_true(row >= 0);
        /* the projected edge at the column's centre; a pixel is covered when its centre is below it */
        float u = (x + 0.5f - pa[0]) / (pb[0] - pa[0]), ye = pa[1] + u * (pb[1] - pa[1]);
        double d = fabs((row + 0.5) - ye);
        worst = fmax(worst, d);
        cols++;
    }
    printf("ramp 30 degrees: far edge projected from (%.1f, %.1f) to (%.1f, %.1f); %d columns, top row of the "
           "silhouette within %.2f px of it\n", pa[0], pa[1], pb[0], pb[1], cols, worst);
    assert_true(cols > 60); /* measured 74: the frame fits the bounding sphere with a margin */
    /* pixel-centre coverage: the first covered centre lies within a pixel below the edge */
    assert_true(worst <= 1.0);
    free(rgb);
    skr_terrain_destroy(t);
    cli_terrain_destroy(ct);
}

static char glb_dir[] = "/tmp/sk_terrain_render_XXXXXX";
static char glb_path[300];

static void test_mesh_vs_heightfield(void **st) {
    (void)st;
    assert_non_null(mkdtemp(glb_dir));
    snprintf(glb_path, sizeof glb_path, "%s/stairs.glb", glb_dir);
    sk_asset *a = terrain_stairs_asset(0.17f, 0.28f, 1.0f, -1, 1, -0.5f, 2.5f, 0.25f);
    assert_non_null(a);
    sk_error err = {0};
    assert_int_equal(sk_glb_write_file(a, glb_path, NULL, &err), SK_OK);
    sk_asset_destroy(a);
    cli_terrain *mesh = NULL, *built = NULL;
    assert_int_equal(cli_terrain_parse(glb_path, &mesh, &err), SK_OK);
    assert_int_equal(cli_terrain_parse("stairs:0.17,0.28", &built, &err), SK_OK);
    skr_terrain *tm = NULL, *th = NULL;
    assert_int_equal(skr_terrain_create_mesh(mesh->asset, &tm, &err), SK_OK);
    skr_terrain_area area = {-1, -0.5f, 1, 2.5f, 5, -5, 0};
    assert_int_equal(skr_terrain_create_heightfield(&built->terrain, &area, &th, &err), SK_OK);
    uint32_t ntm = 0;
    skr_terrain_vertices(tm, &ntm);
    assert_int_equal(ntm, 2 * (1 + 2 * 6)); /* floor, 6 risers and 6 treads in z < 2.5 */
    skr_camera cam = {0};
    float bmin[3] = {-1, 0, -0.5f}, bmax[3] = {1, 1.1f, 2.5f};
    skr_camera_frame(&cam, bmin, bmax, -140.0f, 25.0f, W, H);
    unsigned char *im = malloc(W * H * 3), *ih = malloc(W * H * 3);
    draw(&cam, tm, im);
    draw(&cam, th, ih);
    keep("stairs_glb.png", im);
    keep("stairs_heightfield.png", ih);
    long differ = 0, covered = 0, cover_differ = 0;
    for (int i = 0; i < W * H; i++) {
        const unsigned char *p = im + 3 * i, *q = ih + 3 * i;
        if (abs(p[0] - q[0]) > 24 || abs(p[1] - q[1]) > 24 || abs(p[2] - q[2]) > 24) differ++;
        covered += lit(p);
        cover_differ += lit(p) != lit(q);
    }
    printf("stairs as a .glb mesh vs the built-in stairs' height field: %ld pixels covered, %ld differ in coverage, "
           "%ld differ by more than 24 levels (of %d)\n", covered, cover_differ, differ, W * H);
    assert_true(covered > W * H / 8); /* measured 19% */
    /* the same surfaces: they differ where an edge passes a pixel centre (the height field's steps sit
     * within 1 mm of the mesh's risers) and on the grid lines' anti-aliasing over different triangles */
    assert_true(cover_differ <= W * H / 500);
    assert_true(differ <= W * H / 100);
    free(im), free(ih);
    skr_terrain_destroy(tm), skr_terrain_destroy(th);
    cli_terrain_destroy(mesh), cli_terrain_destroy(built);
}

static void test_cli_glb(void **st) {
    (void)st;
    const char *cli = getenv("SK_CLI");
    assert_non_null(cli);
    char out[400], cmd[2000];
    snprintf(out, sizeof out, "%s/x.png", glb_dir);
    snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 '%s' render @mannequin --terrain '%s' --size 160x120 --out '%s'",
             cli, glb_path, out);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char buf[4096];
    size_t k = fread(buf, 1, sizeof buf - 1, p);
    buf[k] = 0;
    int stt = pclose(p);
    printf("%s", buf);
    assert_true(WIFEXITED(stt) && WEXITSTATUS(stt) == 0);
    assert_non_null(strstr(buf, "terrain: mesh "));
    assert_non_null(strstr(buf, "26 triangles"));
    size_t size = 0;
    char *png = sk_test_read_file(out, &size);
    assert_non_null(png);
    assert_true(size > 1000 && !memcmp(png, "\x89PNG", 4));
    free(png);
    const char *keep_dir = getenv("SK_TERRAIN_IMAGES");
    if (keep_dir && keep_dir[0]) { /* the .glb and a full-size picture of the mannequin on it */
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/stairs.glb' && ASAN_OPTIONS=detect_leaks=0 '%s' render @mannequin --clip walk "
                 "--time 0.3 --terrain '%s' --out '%s/mannequin_on_glb.png' >/dev/null", glb_path, keep_dir, cli, glb_path,
                 keep_dir);
        assert_int_equal(system(cmd), 0);
    }
    remove(out);
    remove(glb_path);
    rmdir(glb_dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stairs_geometry),
        cmocka_unit_test(test_ramp_edge),
        cmocka_unit_test(test_mesh_vs_heightfield),
        cmocka_unit_test(test_cli_glb),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, setup, teardown));
}
