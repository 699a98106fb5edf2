/* The IK scenes behind `skelanim render --ik` (render/ik_scene.c), checked
 * numerically on every frame and in rendered images:
 * - reach: the hand is on the target when it is within reach (1e-4 of the
 *   arm's length); beyond reach the arm is straight and points at it; bone
 *   lengths are kept; joints outside the arm keep their animated pose; the
 *   drawn arm covers the target's pixel, the animated (FK) arm does not.
 * - slope: each ankle's distance to the tilted ground along its normal equals
 *   its animated height above level ground (1 mm); leg lengths are kept; the
 *   knees bend toward the front; the feet turn with the ground; no vertex of
 *   the skinned mesh sinks more than 1.5 cm into the slope and one touches it
 *   in every frame; the image's silhouette matches the CPU-skinned mesh. */
#include "support.h"
#include "ik_scene.h"
#include "skr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sk_vec3 pos(const sk_mat4 *m) { return sk_vec3_make(m->m[12], m->m[13], m->m[14]); }
static float dist(sk_vec3 a, sk_vec3 b) { return sk_vec3_length(sk_vec3_sub(a, b)); }
static float angle(sk_vec3 a, sk_vec3 b) {
    float c = sk_vec3_dot(sk_vec3_normalize(a), sk_vec3_normalize(b));
    return acosf(fmaxf(-1.0f, fminf(1.0f, c)));
}
static sk_vec3 up_axis(const sk_mat4 *m) { return sk_vec3_normalize(sk_vec3_make(m->m[4], m->m[5], m->m[6])); }

typedef struct buffers {
    sk_transform *local, *fk_local;
    sk_mat4 *world, *fk_world, *pal;
    float *weights;
} buffers;

static void buffers_alloc(buffers *b, const sk_asset *a) {
    uint32_t n = a->skeleton->joint_count;
    b->local = calloc(n, sizeof *b->local), b->fk_local = calloc(n, sizeof *b->fk_local);
    b->world = calloc(n, sizeof *b->world), b->fk_world = calloc(n, sizeof *b->fk_world);
    b->pal = calloc(a->skins[0].joint_count, sizeof *b->pal);
    b->weights = calloc(a->skeleton->weight_total + 1, sizeof *b->weights);
    assert_true(b->local && b->fk_local && b->world && b->fk_world && b->pal && b->weights);
}
static void buffers_free(buffers *b) {
    free(b->local), free(b->fk_local), free(b->world), free(b->fk_world), free(b->pal), free(b->weights);
}

static bool in_subtree(const sk_skeleton *s, uint32_t j, uint32_t root) {
    for (int32_t k = (int32_t)j; k >= 0; k = s->parents[k])
        if ((uint32_t)k == root) return true;
    return false;
}

enum { REACH_FRAMES = 48, SLOPE_FRAMES = 32 };

static void test_reach(void **st) {
    (void)st;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    const sk_skeleton *s = a->skeleton;
    skr_ik_scene sc;
    assert_int_equal(skr_ik_scene_init(&sc, a, SKR_IK_REACH, sk_asset_find_clip(a, "idle"), NULL, NULL, NULL, 0, &err),
                     SK_OK);
    assert_int_equal(sc.arm_count, 3);
    const float L = sc.arm_length;
    buffers b;
    buffers_alloc(&b, a);
    int reached = 0, beyond = 0;
    double worst = 0, worst_angle = 0, worst_len = 0;
    for (uint32_t f = 0; f < REACH_FRAMES; f++) {
        skr_ik_frame info;
        double t = f / 15.0;
        assert_int_equal(skr_ik_scene_pose(&sc, t, f, REACH_FRAMES, b.local, b.world, b.weights, b.fk_local,
                                           b.fk_world, &info, &err),
                         SK_OK);
        sk_vec3 sh = pos(&b.world[sc.arm[0]]), el = pos(&b.world[sc.arm[1]]), hand = pos(&b.world[sc.arm[2]]);
        assert_true(dist(sh, pos(&b.fk_world[sc.arm[0]])) < 1e-6f); /* the shoulder does not move */
        float l1 = dist(sh, el), l2 = dist(el, hand);
        float f1 = dist(pos(&b.fk_world[sc.arm[0]]), pos(&b.fk_world[sc.arm[1]]));
        float f2 = dist(pos(&b.fk_world[sc.arm[1]]), pos(&b.fk_world[sc.arm[2]]));
        worst_len = fmax(worst_len, fmax(fabsf(l1 - f1), fabsf(l2 - f2)));
        bool in_reach = dist(info.target, sh) <= l1 + l2;
        assert_true(in_reach == info.result.reachable);
        if (in_reach) {
            reached++;
            worst = fmax(worst, dist(hand, info.target));
        } else {
            beyond++;
            worst_angle = fmax(worst_angle, angle(sk_vec3_sub(hand, sh), sk_vec3_sub(info.target, sh)));
            assert_true(dist(hand, sh) >= (l1 + l2) * (1.0f - 1e-4f)); /* straight */
        }
        /* Everything outside the arm (and the hand's own subtree) keeps its animated pose. */
        for (uint32_t j = 0; j < s->joint_count; j++) {
            if (in_subtree(s, j, sc.arm[0])) continue;
            for (int k = 0; k < 16; k++) assert_true(b.world[j].m[k] == b.fk_world[j].m[k]);
        }
    }
    printf("reach: %d frames within reach (largest hand-to-target distance %.3g m = %.3g of the arm's %.3f m), %d beyond "
           "(largest angle between arm and target direction %.4f deg); bone lengths kept to %.2g m\n",
           reached, worst, worst / L, (double)L, beyond, worst_angle * 57.29578, worst_len);
    assert_true(reached >= REACH_FRAMES / 2 && beyond >= 3);
    assert_true(worst <= 1e-4 * L);
    assert_true(worst_angle * 57.29578 < 0.5);
    assert_true(worst_len < 1e-5);
    buffers_free(&b);
    sk_asset_destroy(a);
}

/* Signed distances of the CPU-skinned mesh to the slope: min over vertices. */
static float mesh_min_distance(const sk_asset *a, const sk_mat4 *world, sk_mat4 *pal, const float *weights, sk_vec3 n) {
    sk_skin_palette(&a->skins[0], world, UINT32_MAX, pal, (&a->skins[0])->joint_count, NULL);
    const sk_primitive *p = &a->meshes[0].primitives[0];
    float lo = INFINITY;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        sk_vec3 q;
        assert_true(sk_primitive_vertex_position(p, v, weights, pal, a->skins[0].joint_count, NULL, &q));
        lo = fminf(lo, sk_vec3_dot(q, n));
    }
    return lo;
}

static void test_slope(void **st) {
    (void)st;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    skr_ik_scene sc;
    assert_int_equal(skr_ik_scene_init(&sc, a, SKR_IK_SLOPE, sk_asset_find_clip(a, "walk"), NULL, NULL, NULL, 15.0f, &err),
                     SK_OK);
    const sk_vec3 n = skr_ik_ground_normal(&sc), level = sk_vec3_make(0, 1, 0);
    assert_true(fabsf(angle(n, level) - 15.0f / 57.29578f) < 1e-5f);
    buffers b;
    buffers_alloc(&b, a);
    double worst_h = 0, worst_len = 0, worst_foot = 0, sink = 0, fk_sink = 0, gap = 0;
    int stance = 0;
    for (uint32_t f = 0; f < SLOPE_FRAMES; f++) {
        skr_ik_frame info;
        double t = f / 15.0;
        assert_int_equal(skr_ik_scene_pose(&sc, t, f, SLOPE_FRAMES, b.local, b.world, b.weights, b.fk_local,
                                           b.fk_world, &info, &err),
                         SK_OK);
        sk_vec3 fwd = sk_vec3_make(0, 0, 1); /* the mannequin walks along +Z, up the slope */
        for (int k = 0; k < 2; k++) {
            const uint32_t *lg = sc.leg[k];
            sk_vec3 hip = pos(&b.world[lg[0]]), knee = pos(&b.world[lg[1]]), ank = pos(&b.world[lg[2]]);
            /* ankle height along the normal = animated height above level ground */
            float h = sk_vec3_dot(ank, n), h0 = pos(&b.fk_world[lg[2]]).y;
            worst_h = fmax(worst_h, fabsf(h - h0));
            for (int j = 0; j < 2; j++) {
                float l = dist(pos(&b.world[lg[j]]), pos(&b.world[lg[j + 1]]));
                float l0 = dist(pos(&b.fk_world[lg[j]]), pos(&b.fk_world[lg[j + 1]]));
                worst_len = fmax(worst_len, fabsf(l - l0));
            }
            /* the knee is in front of the hip-ankle line */
            sk_vec3 d = sk_vec3_normalize(sk_vec3_sub(ank, hip));
            sk_vec3 off = sk_vec3_sub(sk_vec3_sub(knee, hip), sk_vec3_scale(d, sk_vec3_dot(sk_vec3_sub(knee, hip), d)));
            if (sk_vec3_length(off) > 0.01f) assert_true(sk_vec3_dot(off, fwd) > 0);
            /* the foot turns with the ground: angle(foot up, n) = animated angle(foot up, Y) */
            float ai = angle(up_axis(&b.world[lg[2]]), n), a0 = angle(up_axis(&b.fk_world[lg[2]]), level);
            worst_foot = fmax(worst_foot, fabsf(ai - a0));
            if (a0 < 3.0f / 57.29578f && h0 < 0.12f) stance++; /* flat on the level ground in the clip */
        }
        float lo = mesh_min_distance(a, b.world, b.pal, b.weights, n);
        float lo0 = mesh_min_distance(a, b.fk_world, b.pal, b.weights, level);
        sink = fmax(sink, -lo), gap = fmax(gap, lo), fk_sink = fmax(fk_sink, fabs(lo0));
    }
    printf("slope 15 deg, %d frames: ankle height along the normal vs animated height: max error %.3g m; leg bones "
           "kept to %.2g m; foot tilt vs animated: %.4f deg (%d foot-frames flat in stance); skinned mesh lowest point "
           "vs the slope: deepest %.4f m below, highest %.4f m above (the level-ground clip: %.4f m)\n",
           SLOPE_FRAMES, worst_h, worst_len, worst_foot * 57.29578, stance, sink, gap, fk_sink);
    assert_true(worst_h < 1e-3);
    assert_true(worst_len < 1e-5);
    assert_true(worst_foot * 57.29578 < 0.5);
    assert_true(stance > 0);
    assert_true(sink < 0.015 && gap < 0.015);
    buffers_free(&b);
    sk_asset_destroy(a);
}

enum { W = 320, H = 320 };

static bool is_bg(const unsigned char *rgb, int x, int y) {
    if (x < 0 || y < 0 || x >= W || y >= H) return true;
    const unsigned char *p = rgb + 3 * (y * W + x);
    return abs(p[0] - rgb[0]) <= 2 && abs(p[1] - rgb[1]) <= 2 && abs(p[2] - rgb[2]) <= 2; /* top-left is background */
}

static void draw(skr_renderer *rn, skr_headless *hd, const skr_camera *cam, const skr_model *m, const sk_mat4 *pal,
                 unsigned char *rgb) {
    skr_frame_desc fd = {cam, {0.2f, 0.2f, 0.2f}, false, 0, 0, {0, 0}};
    skr_begin_frame(rn, &fd);
    skr_draw_desc dd = {m, 1, pal, NULL, NULL};
    skr_draw_model(rn, &dd);
    skr_headless_read(hd, rgb);
}

static void test_images(void **st) {
    (void)st;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, &err), SK_OK);
    skr_headless *hd = skr_headless_create(W, H, 0, &err);
    if (!hd) fprintf(stderr, "no off-screen GL context: %s\n", err.message);
    assert_non_null(hd);
    skr_headless_bind(hd);
    skr_renderer *rn = NULL;
    skr_model *m = NULL;
    assert_int_equal(skr_renderer_create(&rn, &err), SK_OK);
    assert_int_equal(skr_model_create(a, 0, &m, &err), SK_OK);
    buffers b;
    buffers_alloc(&b, a);
    sk_mat4 *fk_pal = calloc(skr_model_palette_size(m), sizeof *fk_pal);
    unsigned char *rgb = malloc(W * H * 3);

    /* reach: the reachable frame whose target is farthest from the animated hand */
    skr_ik_scene sc;
    assert_int_equal(skr_ik_scene_init(&sc, a, SKR_IK_REACH, sk_asset_find_clip(a, "idle"), NULL, NULL, NULL, 0, &err),
                     SK_OK);
    uint32_t best = 0;
    float best_d = -1;
    skr_ik_frame info;
    for (uint32_t f = 0; f < REACH_FRAMES; f++) {
        assert_int_equal(skr_ik_scene_pose(&sc, f / 15.0, f, REACH_FRAMES, b.local, b.world, b.weights, b.fk_local,
                                           b.fk_world, &info, &err),
                         SK_OK);
        float d = dist(info.target, pos(&b.fk_world[sc.arm[2]]));
        if (info.result.reachable && d > best_d) best_d = d, best = f;
    }
    assert_int_equal(skr_ik_scene_pose(&sc, best / 15.0, best, REACH_FRAMES, b.local, b.world, b.weights, b.fk_local,
                                       b.fk_world, &info, &err),
                     SK_OK);
    skr_model_palette(m, b.world, b.pal);
    skr_model_palette(m, b.fk_world, fk_pal);
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    skr_model_bounds(m, b.pal, b.weights, bmin, bmax);
    skr_model_bounds(m, fk_pal, b.weights, bmin, bmax);
    skr_camera cam = {0};
    skr_camera_frame(&cam, bmin, bmax, -50.0f, 12.0f, W, H);
    float tx, ty;
    assert_true(skr_camera_project(&cam, (const float[3]){info.target.x, info.target.y, info.target.z}, &tx, &ty));
    int px = (int)floorf(tx), py = (int)floorf(ty), covered_ik = 0, covered_fk = 0;
    draw(rn, hd, &cam, m, b.pal, rgb);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) covered_ik += !is_bg(rgb, px + dx, py + dy);
    draw(rn, hd, &cam, m, fk_pal, rgb);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) covered_fk += !is_bg(rgb, px + dx, py + dy);
    printf("reach frame %u (target %.2f m from the animated hand): target at pixel (%.1f, %.1f); character pixels in its "
           "3x3 neighbourhood: %d with IK, %d without\n",
           best, (double)best_d, tx, ty, covered_ik, covered_fk);
    assert_true(best_d > 0.2f);
    assert_int_equal(covered_ik, 9);
    assert_int_equal(covered_fk, 0);

    /* slope: the drawn silhouette is where the CPU-skinned, IK-posed mesh projects */
    assert_int_equal(skr_ik_scene_init(&sc, a, SKR_IK_SLOPE, sk_asset_find_clip(a, "walk"), NULL, NULL, NULL, 15.0f, &err),
                     SK_OK);
    assert_int_equal(skr_ik_scene_pose(&sc, 0.4, 6, SLOPE_FRAMES, b.local, b.world, b.weights, NULL, NULL, &info, &err),
                     SK_OK);
    skr_model_palette(m, b.world, b.pal);
    for (int k = 0; k < 3; k++) bmin[k] = INFINITY, bmax[k] = -INFINITY;
    skr_model_bounds(m, b.pal, b.weights, bmin, bmax);
    memset(&cam, 0, sizeof cam);
    skr_camera_frame(&cam, bmin, bmax, 65.0f, 8.0f, W, H);
    draw(rn, hd, &cam, m, b.pal, rgb);
    int minx = W, miny = H, maxx = -1, maxy = -1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (!is_bg(rgb, x, y)) minx = x < minx ? x : minx, maxx = x > maxx ? x : maxx, miny = y < miny ? y : miny,
                                   maxy = y > maxy ? y : maxy;
    sk_skin_palette(&a->skins[0], b.world, UINT32_MAX, b.pal, (&a->skins[0])->joint_count, NULL);
    const sk_primitive *p = &a->meshes[0].primitives[0];
    float pminx = INFINITY, pminy = INFINITY, pmaxx = -INFINITY, pmaxy = -INFINITY;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        sk_vec3 q;
        float qx, qy;
        assert_true(sk_primitive_vertex_position(p, v, b.weights, b.pal, a->skins[0].joint_count, NULL, &q));
        if (!skr_camera_project(&cam, (const float[3]){q.x, q.y, q.z}, &qx, &qy)) continue;
        pminx = fminf(pminx, qx), pmaxx = fmaxf(pmaxx, qx), pminy = fminf(pminy, qy), pmaxy = fmaxf(pmaxy, qy);
    }
    double off = fmax(fmax(fabs(minx - pminx), fabs(maxx + 1 - pmaxx)), fmax(fabs(miny - pminy), fabs(maxy + 1 - pmaxy)));
    printf("slope frame: silhouette [%d,%d]-[%d,%d], projected CPU-skinned IK mesh [%.1f,%.1f]-[%.1f,%.1f]: %.2f px\n",
           minx, miny, maxx + 1, maxy + 1, pminx, pminy, pmaxx, pmaxy, off);
    assert_true(off <= 2.0);

    free(rgb);
    free(fk_pal);
    buffers_free(&b);
    skr_model_destroy(m);
    skr_renderer_destroy(rn);
    skr_headless_destroy(hd);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reach), cmocka_unit_test(test_slope),
                                       cmocka_unit_test(test_images)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
