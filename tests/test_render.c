/* Headless rendering checked against the CPU: the character is drawn with GPU
 * skinning on an off-screen context (EGL surfaceless, Mesa's software
 * rasteriser) and compared with CPU-skinned vertices projected through the
 * same camera: the silhouette's bounding box within 1 pixel, marker vertices
 * within 0.75 pixel, and the CPU-skinned image must differ from the GPU one
 * in at most 0.02% of pixels (the limits are explained in check_scene). No GL
 * context is a failure, not a skip, with or without CI: make test installs
 * Mesa. Without ../shared the CesiumMan tests follow tests/support.h's rule
 * (skipped, or a failure under CI). */
#include "support.h"
#include "skr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 320, H = 320 };
static const float BG[3] = {0.2f, 0.2f, 0.2f};

typedef struct scene {
    sk_asset *asset;
    skr_headless *hd;
    skr_renderer *rn;
    skr_model *model;
    sk_mat4 *pal;
    float *weights, *cpu;
    skr_camera cam;
    uint32_t marker_vertices; /* markers are drawn from the model's first item: its vertex count (0: all) */
} scene;

/* Leak detection stays on: skr_headless_create keeps Mesa's DRI driver mapped
 * (RTLD_NODELETE), so the objects it keeps per display stay reachable at exit
 * and LeakSanitizer needs no suppression file (render/headless.c). */
static void scene_open_pose(scene *sc, sk_asset *asset, int32_t clip, double t, const sk_transform *pose,
                            unsigned flags) {
    sk_error err = {0};
    memset(sc, 0, sizeof *sc);
    sc->asset = asset;
    sc->hd = skr_headless_create(W, H, 0, &err);
    if (!sc->hd) fprintf(stderr, "no off-screen GL context: %s\n", err.message);
    assert_non_null(sc->hd);
    skr_headless_bind(sc->hd);
    assert_int_equal(skr_renderer_create(&sc->rn, &err), SK_OK);
    assert_int_equal(skr_model_create(asset, flags, &sc->model, &err), SK_OK);
    const sk_skeleton *s = asset->skeleton;
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *world = calloc(s->joint_count, sizeof *world);
    sc->pal = calloc(skr_model_palette_size(sc->model), sizeof *sc->pal);
    sc->weights = calloc(s->weight_total + 1, sizeof(float));
    sc->cpu = calloc((size_t)skr_model_vertex_count(sc->model) * 6, sizeof(float));
    if (clip >= 0) assert_int_equal(sk_clip_sample(asset->clips[clip], s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, local, sc->weights), NULL), SK_OK);
    else sk_pose_rest(s, SK_POSE_OF(s, local, sc->weights), NULL);
    if (pose) memcpy(local, pose, s->joint_count * sizeof *local);
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
    skr_model_palette(sc->model, world, sc->pal);
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    skr_model_bounds(sc->model, sc->pal, sc->weights, bmin, bmax);
    skr_camera_frame(&sc->cam, bmin, bmax, 35.0f, 12.0f, W, H);
    assert_int_equal(skr_model_skin_cpu(sc->model, sc->pal, sc->weights, SK_SKIN_LBS, SK_SIMD_SCALAR, sc->cpu, &err), SK_OK);
    free(local);
    free(world);
}

static void scene_open(scene *sc, sk_asset *asset, int32_t clip, double t, unsigned flags) {
    scene_open_pose(sc, asset, clip, t, NULL, flags);
}

static void scene_close(scene *sc) {
    skr_model_destroy(sc->model);
    skr_renderer_destroy(sc->rn);
    skr_headless_destroy(sc->hd);
    free(sc->pal);
    free(sc->weights);
    free(sc->cpu);
}

static void draw(scene *sc, bool cpu, unsigned char *rgb) {
    skr_frame_desc fd = {&sc->cam, {BG[0], BG[1], BG[2]}, false, 0, 0, {0, 0}};
    skr_begin_frame(sc->rn, &fd);
    skr_draw_desc dd = {sc->model, 1, cpu ? NULL : sc->pal, cpu ? sc->cpu : NULL, NULL};
    skr_draw_model(sc->rn, &dd);
    skr_headless_read(sc->hd, rgb);
}

static bool is_bg(const unsigned char *p, const unsigned char *bg) {
    return abs(p[0] - bg[0]) <= 2 && abs(p[1] - bg[1]) <= 2 && abs(p[2] - bg[2]) <= 2;
}

static void check_scene(scene *sc, const char *name) {
    unsigned char *gpu = malloc(W * H * 3), *cpu = malloc(W * H * 3);
    draw(sc, false, gpu);
    draw(sc, true, cpu);
    const unsigned char *bg = gpu; /* the top-left corner is background (the camera frames a margin) */
    int minx = W, miny = H, maxx = -1, maxy = -1;
    long differ = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const unsigned char *p = gpu + 3 * (y * W + x), *q = cpu + 3 * (y * W + x);
            if (!is_bg(p, bg)) {
                if (x < minx) minx = x;
                if (x > maxx) maxx = x;
                if (y < miny) miny = y;
                if (y > maxy) maxy = y;
            }
            if (abs(p[0] - q[0]) > 8 || abs(p[1] - q[1]) > 8 || abs(p[2] - q[2]) > 8) differ++;
        }
    /* Projected CPU-skinned vertices: their bounding box is the silhouette's. */
    float pminx = INFINITY, pminy = INFINITY, pmaxx = -INFINITY, pmaxy = -INFINITY;
    uint32_t nv = skr_model_vertex_count(sc->model);
    for (uint32_t v = 0; v < nv; v++) {
        float px, py;
        if (!skr_camera_project(&sc->cam, sc->cpu + (size_t)v * 6, &px, &py)) continue;
        pminx = fminf(pminx, px), pmaxx = fmaxf(pmaxx, px), pminy = fminf(pminy, py), pmaxy = fmaxf(pmaxy, py);
    }
    double dbox = fmax(fmax(fabs(minx - pminx), fabs(maxx + 1 - pmaxx)), fmax(fabs(miny - pminy), fabs(maxy + 1 - pmaxy)));
    printf("%s: silhouette [%d,%d]-[%d,%d], projected CPU vertices [%.1f,%.1f]-[%.1f,%.1f]: max edge offset %.2f px; "
           "GPU vs CPU skinning: %ld of %d pixels differ (%.3f%%)\n",
           name, minx, miny, maxx + 1, maxy + 1, pminx, pminy, pmaxx, pmaxy, dbox, differ, W * H, 100.0 * differ / (W * H));
    assert_true(maxx >= 0);
    /* A pixel is covered when its centre is inside a triangle, so the silhouette's edge lies within
     * half a pixel of the projected outline; where the outermost vertex ends a thin sliver of
     * triangle, the first covered centre can sit up to a pixel inside it: 1 px. Measured: 0.47. */
    assert_true(dbox <= 1.0);
    /* Both paths rasterise the same triangles; their vertex positions differ by float32 rounding
     * (about 1e-6 of the extent: 1e-4 px here) and their shading by as little. A pixel changes by
     * more than 8 levels only where an edge passes that close to its centre: a handful of pixels
     * in 320 x 320. Measured: 4 (CesiumMan), 0 (mannequin, 300-joint helix). Limit 0.02% (20). */
    assert_true(differ <= W * H / 5000);

    /* Marker vertices, GPU-skinned, drawn as coloured points on the background. */
    static const unsigned char colors[3][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
    uint32_t mv = sc->marker_vertices ? sc->marker_vertices : nv;
    uint32_t verts[3] = {mv / 7, mv / 2, mv - 1 - mv / 5};
    skr_frame_desc fd = {&sc->cam, {0, 0, 0}, false, 0, 0, {0, 0}};
    for (int k = 0; k < 3; k++) {
        skr_begin_frame(sc->rn, &fd);
        skr_draw_markers(sc->rn, sc->model, sc->pal, &verts[k], 1, &colors[k], 3.0f);
        skr_headless_read(sc->hd, gpu);
        double sx = 0, sy = 0, n = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const unsigned char *p = gpu + 3 * (y * W + x);
                if (p[0] + p[1] + p[2] > 60) sx += x + 0.5, sy += y + 0.5, n++;
            }
        float ex, ey;
        assert_true(skr_camera_project(&sc->cam, sc->cpu + (size_t)verts[k] * 6, &ex, &ey));
        assert_true(n > 0);
        double d = hypot(sx / n - ex, sy / n - ey);
        printf("%s: vertex %u drawn at (%.2f, %.2f), CPU projection (%.2f, %.2f): %.2f px apart\n", name, verts[k], sx / n,
               sy / n, ex, ey, d);
        /* A 3 px point covers the 3 x 3 pixels whose centres lie within 1.5 px of it: their centroid is
         * the pixel centre nearest the vertex, at most half a pixel off in x and in y, so at most
         * sqrt(0.5) = 0.71 px away (GPU/CPU rounding adds 1e-4 px). Measured: up to 0.61. */
        assert_true(d <= 0.75);
    }
    free(gpu);
    free(cpu);
}

static void test_mannequin(void **st) {
    (void)st;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    scene sc;
    scene_open(&sc, a, sk_asset_find_clip(a, "walk"), 0.3, 0);
    check_scene(&sc, "mannequin walk t=0.3");
    scene_close(&sc);
    sk_asset_destroy(a);
}

static void test_cesium_man(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char path[2048];
    snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/CesiumMan.glb", shared);
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_file(path, NULL, &a, &err), SK_OK);
    scene sc;
    scene_open(&sc, a, 0, 0.5, 0);
    check_scene(&sc, "CesiumMan t=0.5");
    scene_close(&sc);
    sk_asset_destroy(a);
}

/* Base-colour textures: CesiumMan's texture has green and blue stripes; drawn
 * with it (decoded from the image bytes the asset carries) the figure shows
 * them, drawn without (base colour only) not. */
static long count_green(sk_asset *a, unsigned flags) {
    scene sc;
    scene_open(&sc, a, -1, 0.0, flags);
    unsigned char *rgb = malloc(W * H * 3);
    draw(&sc, false, rgb);
    long green = 0;
    for (int i = 0; i < W * H; i++) green += rgb[3 * i + 1] > rgb[3 * i] + 40 && rgb[3 * i + 1] > rgb[3 * i + 2];
    free(rgb);
    scene_close(&sc);
    return green;
}

static void test_texture(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char path[2048];
    snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/CesiumMan.glb", shared);
    sk_asset *a = NULL;
    assert_int_equal(sk_gltf_load_file(path, NULL, &a, NULL), SK_OK);
    long with = count_green(a, 0), without = count_green(a, SKR_MODEL_NO_TEXTURES);
    printf("CesiumMan green texels on screen: %ld with its texture, %ld with the base colour only\n", with, without);
    assert_true(with > 200);
    assert_int_equal(without, 0);
    sk_asset_destroy(a);
}

/* More joints than a uniform array holds: a tube of 300 joints (a chain
 * along +Y in the bind pose, one ring of vertices per joint, each ring
 * weighted 0.7 / 0.3 to its joint and the one before) whose rest pose curls
 * into a helix. The GPU path reads every palette entry from the texture
 * buffer; if joints past 128 (or any limit) were wrong, the silhouette and the
 * marker vertices (rings 42, 150 and 239) would not match the CPU. */
enum { SNAKE_J = 300, SNAKE_RING = 12 };
static sk_asset *make_snake(void) {
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_asset_create_empty(NULL, &a, &err), SK_OK);
    const uint32_t n = SNAKE_J + 1; /* joints + the mesh node */
    const float bone = 0.02f, radius = 0.05f;
    int32_t *parents = sk_asset_alloc(a, n * sizeof *parents);
    sk_transform *rest = sk_asset_alloc(a, n * sizeof *rest);
    for (uint32_t j = 0; j < n; j++) {
        parents[j] = j == 0 || j == SNAKE_J ? -1 : (int32_t)j - 1;
        rest[j] = sk_transform_identity();
        if (j > 0 && j < SNAKE_J) {
            rest[j].t = sk_vec3_make(0, bone, 0);
            /* 2.1 degrees about Z then a quarter-degree twist: a helix */
            rest[j].r = sk_quat_mul(sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), 0.0367f),
                                    sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), 0.02f));
        }
    }
    sk_skeleton_desc sd = {0};
    sd.joint_count = n;
    sd.parents = parents;
    sd.rest = rest;
    assert_int_equal(sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, &err), SK_OK);
    uint32_t *n2j = sk_asset_alloc(a, n * sizeof *n2j), *j2n = sk_asset_alloc(a, n * sizeof *j2n);
    int32_t *jmesh = sk_asset_alloc(a, n * sizeof *jmesh), *jskin = sk_asset_alloc(a, n * sizeof *jskin);
    sk_skin *skin = sk_asset_alloc(a, sizeof *skin);
    uint32_t *sj = sk_asset_alloc(a, SNAKE_J * sizeof *sj);
    sk_mat4 *ibm = sk_asset_alloc(a, SNAKE_J * sizeof *ibm);
    for (uint32_t j = 0; j < n; j++) n2j[j] = j2n[j] = j, jmesh[j] = jskin[j] = -1;
    jmesh[SNAKE_J] = jskin[SNAKE_J] = 0;
    for (uint32_t j = 0; j < SNAKE_J; j++) {
        sj[j] = j;
        ibm[j] = sk_mat4_identity();
        ibm[j].m[13] = -bone * (float)j; /* bind pose: straight along +Y */
    }
    skin->name = "snake";
    skin->joint_count = SNAKE_J;
    skin->joints = sj;
    skin->inverse_bind = ibm;
    skin->skeleton_root = 0;
    a->node_count = n, a->node_to_joint = n2j, a->joint_to_node = j2n, a->joint_mesh = jmesh, a->joint_skin = jskin;
    a->skin_count = 1, a->skins = skin;
    const uint32_t nv = SNAKE_J * SNAKE_RING, ni = (SNAKE_J - 1) * SNAKE_RING * 6;
    float *pos = sk_asset_alloc(a, nv * 3 * sizeof(float)), *nrm = sk_asset_alloc(a, nv * 3 * sizeof(float));
    float *w = sk_asset_alloc(a, nv * 4 * sizeof(float));
    uint16_t *jt = sk_asset_alloc(a, nv * 4 * sizeof(uint16_t));
    uint32_t *idx = sk_asset_alloc(a, ni * sizeof(uint32_t));
    for (uint32_t j = 0; j < SNAKE_J; j++)
        for (uint32_t k = 0; k < SNAKE_RING; k++) {
            uint32_t v = j * SNAKE_RING + k;
            float ang = 6.2831853f * (float)k / SNAKE_RING, c = cosf(ang), sn = sinf(ang);
            pos[3 * v] = radius * c, pos[3 * v + 1] = bone * (float)j, pos[3 * v + 2] = radius * sn;
            nrm[3 * v] = c, nrm[3 * v + 1] = 0, nrm[3 * v + 2] = sn;
            jt[4 * v] = (uint16_t)j, jt[4 * v + 1] = (uint16_t)(j ? j - 1 : 0);
            w[4 * v] = j ? 0.7f : 1.0f, w[4 * v + 1] = j ? 0.3f : 0.0f;
        }
    uint32_t q = 0;
    for (uint32_t j = 0; j + 1 < SNAKE_J; j++)
        for (uint32_t k = 0; k < SNAKE_RING; k++) {
            uint32_t a0 = j * SNAKE_RING + k, a1 = j * SNAKE_RING + (k + 1) % SNAKE_RING;
            uint32_t b0 = a0 + SNAKE_RING, b1 = a1 + SNAKE_RING;
            idx[q++] = a0, idx[q++] = b0, idx[q++] = a1;
            idx[q++] = a1, idx[q++] = b0, idx[q++] = b1;
        }
    sk_primitive *prim = sk_asset_alloc(a, sizeof *prim);
    prim->mode = 4, prim->vertex_count = nv, prim->positions = pos, prim->normals = nrm;
    prim->influence_count = 4, prim->joints = jt, prim->weights = w;
    prim->index_count = ni, prim->indices = idx, prim->material = -1;
    for (int c = 0; c < 4; c++) prim->base_color[c] = 1.0f;
    sk_mesh *mesh = sk_asset_alloc(a, sizeof *mesh);
    mesh->name = "snake", mesh->primitive_count = 1, mesh->primitives = prim;
    a->mesh_count = 1, a->meshes = mesh;
    return a;
}

static void test_many_joints(void **st) {
    (void)st;
    sk_asset *a = make_snake();
    scene sc;
    scene_open(&sc, a, -1, 0.0, 0);
    assert_true(skr_model_palette_size(sc.model) >= SNAKE_J);
    check_scene(&sc, "300-joint helix (rest pose)");
    /* The tip ring must be far from where a straight (unskinned) chain puts it. */
    const float *tip = sc.cpu + (size_t)(SNAKE_J * SNAKE_RING - 1) * 6;
    assert_true(fabsf(tip[1] - 0.02f * (SNAKE_J - 1)) > 0.5f);
    scene_close(&sc);
    sk_asset_destroy(a);
}

/* The sprite (content/sprite.h) in the side view locomote --side draws it in: orthographic from +X,
 * posed mid-stride by turns about X (thigh, shin, foot, arm): the silhouette and markers as above. */
static void test_sprite_side(void **st) {
    (void)st;
    sk_asset *a = NULL;
    assert_int_equal(sk_sprite_create(NULL, &a, NULL), SK_OK);
    const sk_skeleton *s = a->skeleton;
    sk_transform *pose = calloc(s->joint_count, sizeof *pose);
    memcpy(pose, s->rest, s->joint_count * sizeof *pose);
    static const struct { const char *joint; float angle; } turns[] = {
        {"thigh_l", -0.55f}, {"shin_l", 0.35f}, {"thigh_r", 0.35f}, {"shin_r", 0.6f}, {"foot_r", -0.3f},
        {"upperarm_l", 0.5f}, {"forearm_l", -0.6f}, {"upperarm_r", -0.4f}, {"spine", -0.1f}};
    for (size_t k = 0; k < sizeof turns / sizeof turns[0]; k++) {
        int32_t j = sk_skeleton_find(s, turns[k].joint);
        assert_true(j >= 0);
        pose[j].r = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), turns[k].angle);
    }
    scene sc;
    scene_open_pose(&sc, a, -1, 0.0, pose, 0);
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    skr_model_bounds(sc.model, sc.pal, sc.weights, bmin, bmax);
    float ctr[3] = {0.5f * (bmin[0] + bmax[0]), 0.5f * (bmin[1] + bmax[1]), 0.5f * (bmin[2] + bmax[2])};
    memset(&sc.cam, 0, sizeof sc.cam);
    sc.cam.ortho = 0.6f * fmaxf(bmax[1] - bmin[1], bmax[2] - bmin[2]);
    skr_camera_orbit(&sc.cam, ctr, 90.0f, 0.0f, 3.0f, W, H);
    sc.marker_vertices = a->meshes[0].primitives[0].vertex_count; /* the sprite has a primitive per colour */
    check_scene(&sc, "sprite side view (orthographic)");
    scene_close(&sc);
    free(pose);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_mannequin), cmocka_unit_test(test_cesium_man),
                                       cmocka_unit_test(test_texture), cmocka_unit_test(test_many_joints),
                                       cmocka_unit_test(test_sprite_side)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
