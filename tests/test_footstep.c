/* The step-edge rule of the locomotion runtimes' footstep placement
 * (src/locomotion/footstep.c, seed 002 §5.2.1): a foot whose heel and toe
 * would stand on two treads is moved onto one, the shorter way first, with a
 * hysteresis that keeps a leg's last direction of move.
 *
 * Stairs of 0.17 m risers and 0.28 m treads along +Z, the first riser at
 * z = 1; a 0.15 m foot along +Z (its rays 1 cm beyond heel and toe, 0.17 m
 * in all; a move clears the edge by 2 cm). A heel at z = 0.95 straddles the
 * riser near the toe: moved forward onto the first tread (0.08 m against
 * 0.13 back). When the prediction falls back to a heel at z = 0.87, the move
 * back is 0.05 m and forward 0.16:
 * - with the locomotor's hysteresis (ground_probe.edge_hysteresis = 0.5 of
 *   the foot) it goes back to the floor: the forward move is longer by more
 *   than half the foot;
 * - with the first rule (0: keep the last direction while its move is under
 *   a foot's length, the IK-only walker's) it stays on the tread.
 * And the hysteresis still does its job: a heel jittering by 2 cm about the
 * point where both moves are equal does not change tread, where a rule
 * without it would at every frame; a steady sweep changes tread once. */
#include "support.h"

#include "skelanim.h"
#include "locomotion/footstep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static ground_probe stairs_probe(sk_terrain_shape *storage, float hysteresis) {
    ground_probe G;
    memset(&G, 0, sizeof G);
    sk_terrain_stairs_options o;
    memset(&o, 0, sizeof o);
    o.rise = 0.17f, o.run = 0.28f;
    o.start = sk_vec3_make(0, 0, 1);
    o.direction = sk_vec3_make(0, 0, 1);
    assert_int_equal(sk_terrain_stairs(storage, &o, &G.terrain, NULL), SK_OK);
    G.max_up = 1.0f, G.max_down = 1.0f;
    G.center = sk_vec3_make(0, 0, 0.5f);
    G.edge_hysteresis = hysteresis;
    return G;
}

/* The height of the footstep for a heel at z (0: the floor, 0.17: the first tread). */
static float place(ground_probe *G, float z, int *prefer) {
    sk_footstep fs;
    footstep_place(G, sk_vec3_make(0, 0, 0.15f), sk_vec3_make(0, 0, z), 0.0f, 0.0, prefer, &fs);
    assert_true(isfinite(fs.position.y));
    assert_true(fabsf(fs.position.y) < 1e-4f || fabsf(fs.position.y - 0.17f) < 1e-4f); /* on one tread */
    return fs.position.y;
}

static void test_retreat(void **state) {
    (void)state;
    sk_terrain_shape st;
    for (int rule = 0; rule < 2; rule++) {
        ground_probe G = stairs_probe(&st, rule ? 0.5f : 0.0f);
        int prefer = 0;
        float y0 = place(&G, 0.95f, &prefer);
        assert_true(fabsf(y0 - 0.17f) < 1e-4f); /* forward, onto the tread */
        assert_int_equal(prefer, 1);
        float y1 = place(&G, 0.87f, &prefer);
        printf("  %s: heel at 0.95 -> tread %.2f; falls back to 0.87 -> %.2f\n",
               rule ? "hysteresis 0.5 of the foot (locomotor)" : "within a foot length (IK-only walker)", (double)y0,
               (double)y1);
        if (rule) {
            assert_true(fabsf(y1) < 1e-4f); /* back onto the floor */
            assert_int_equal(prefer, -1);
        } else {
            assert_true(fabsf(y1 - 0.17f) < 1e-4f); /* kept on the tread */
        }
        /* with no memory the shorter move, back */
        assert_true(fabsf(place(&G, 0.87f, NULL)) < 1e-4f);
    }
}

static void test_jitter_and_sweep(void **state) {
    (void)state;
    sk_terrain_shape st;
    ground_probe G = stairs_probe(&st, 0.5f);
    /* both moves equal where the edge is half way along the padded foot: heel 1 - 0.085 + 0.01 */
    const float mid = 1.0f - 0.5f * 0.17f + 0.01f;
    int prefer = 0, changes = 0, free_changes = 0;
    float last = place(&G, mid + 0.01f, &prefer), free_last = place(&G, mid + 0.01f, NULL);
    for (int k = 1; k <= 40; k++) {
        float z = mid + (k % 2 ? -0.01f : 0.01f);
        float y = place(&G, z, &prefer), yf = place(&G, z, NULL);
        changes += fabsf(y - last) > 1e-4f;
        free_changes += fabsf(yf - free_last) > 1e-4f;
        last = y, free_last = yf;
    }
    printf("  heel jittering +-1 cm about %.3f for 40 frames: %d tread changes (without memory: %d)\n", (double)mid,
           changes, free_changes);
    assert_int_equal(changes, 0);
    assert_int_equal(free_changes, 40);
    /* a steady sweep back and forth over the riser changes tread once each way */
    int sweep = 0;
    prefer = 0;
    last = place(&G, 0.99f, &prefer);
    for (float z = 0.99f; z >= 0.70f; z -= 0.005f) {
        float y = place(&G, z, &prefer);
        sweep += fabsf(y - last) > 1e-4f, last = y;
    }
    assert_true(fabsf(last) < 1e-4f);
    for (float z = 0.70f; z <= 0.99f; z += 0.005f) {
        float y = place(&G, z, &prefer);
        sweep += fabsf(y - last) > 1e-4f, last = y;
    }
    assert_true(fabsf(last - 0.17f) < 1e-4f);
    printf("  swept 0.99 -> 0.70 -> 0.99: %d tread changes\n", sweep);
    assert_int_equal(sweep, 2);
}

/* The stairs' tread height under z, written here: 0 before the first riser at z = 1, then 0.17 per
 * 0.28 m tread. */
static float tread_y(float z) { return z < 1.0f ? 0.0f : 0.17f * (floorf((z - 1.0f) / 0.28f) + 1.0f); }

/* A foot nearly as long as a tread (Mixamo's characters: 0.255 m, 0.275 m with its rays' pads, on the
 * 0.28 m treads): neither move of the rule clears the next edge by its margin, and the foot used to
 * stand flat on the higher tread where it was found (a foot over the lower tread but for its toe's
 * pad: 17 cm in the air). Swept over three treads in 5 mm steps, with and without the rule's memory,
 * every footstep's own heel and toe stand over one tread at the footstep's height, and the foot is
 * moved less than a tread. A foot longer than a tread still stands on one level (the higher). */
static void test_long_foot(void **state) {
    (void)state;
    sk_terrain_shape st;
    for (int rule = 0; rule < 2; rule++) {
        ground_probe G = stairs_probe(&st, rule ? 0.5f : 0.0f);
        int prefer = 0, n = 0, moved = 0;
        float most = 0;
        for (float z = 1.05f; z <= 1.90f; z += 0.005f, n++) {
            sk_footstep fs;
            footstep_place(&G, sk_vec3_make(0, 0, 0.255f), sk_vec3_make(0, 0, z), 0.0f, 0.0, rule ? &prefer : NULL, &fs);
            float heel = fs.position.z, toe = heel + 0.255f, y = fs.position.y;
            if (fabsf(tread_y(heel) - y) > 1e-4f || fabsf(tread_y(toe) - y) > 1e-4f || fabsf(tread_y(heel + 0.1275f) - y) > 1e-4f)
                fail_msg("heel at %.3f: footstep heel %.4f toe %.4f at y %.4f, treads %.2f / %.2f", (double)z, (double)heel,
                         (double)toe, (double)y, (double)tread_y(heel), (double)tread_y(toe));
            moved += fabsf(heel - z) > 1e-4f;
            most = fmaxf(most, fabsf(heel - z));
        }
        printf("  a 0.255 m foot on 0.28 m treads (%s): %d heels, %d moved, by at most %.3f m\n",
               rule ? "hysteresis" : "no memory", n, moved, (double)most);
        assert_int_equal(n, 171);
        assert_true(moved > 0 && most < 0.28f);
    }
    ground_probe G = stairs_probe(&st, 0.5f);
    sk_footstep fs;
    footstep_place(&G, sk_vec3_make(0, 0, 0.32f), sk_vec3_make(0, 0, 1.2f), 0.0f, 0.0, NULL, &fs);
    assert_true(fabsf(fs.position.y - 0.34f) < 1e-4f); /* longer than a tread: flat on the higher */
}

/* A foot whose padded length nearly fills the tread (CesiumMan's: 0.257 m, 0.277 m with its rays'
 * pads, on 0.28 m treads) with its padded heel just behind an edge: the shorter way off the edge is
 * forward, but the move forward (which clears the edge by its 2 cm margin) puts the toe's pad over
 * the next edge. The foot must go forward all the same, centred on the tread beyond the edge: the
 * rule used to try the move back first, a whole foot, which fits where the foot is turned a little
 * (its length along the stairs shorter), and up stairs such a foot then stood on the tread the
 * other foot stood on. Swept with the heel's pad 1-6 mm behind each of three edges, the foot turned
 * 0-30 degrees off the stairs' direction; the heel must land on the tread beyond the edge. */
static void test_nearly_filled_tread(void **state) {
    (void)state;
    sk_terrain_shape st;
    ground_probe G = stairs_probe(&st, 0.5f);
    const float len = 0.257f;
    int n = 0, back = 0;
    for (int deg = 0; deg <= 30; deg += 5) {
        float a = (float)deg * 3.14159265f / 180, ca = cosf(a);
        sk_vec3 dir = sk_vec3_make(sinf(a) * len, 0, ca * len);
        for (int e = 1; e <= 3; e++) {
            float edge = 1.0f + 0.28f * (float)e;
            for (int mm = 1; mm <= 6; mm++, n++) {
                float heel = edge - 0.001f * (float)mm + 0.01f * ca; /* the heel's pad mm behind the edge */
                sk_footstep fs;
                footstep_place(&G, dir, sk_vec3_make(0, 0, heel), 0.0f, 0.0, NULL, &fs);
                if (fs.position.z < edge - 1e-4f || fabsf(fs.position.y - tread_y(edge + 0.01f)) > 1e-4f) back++;
            }
        }
    }
    printf("  a 0.257 m foot with its heel's pad 1-6 mm behind an edge, turned 0-30 degrees: %d placed, %d not "
           "on the tread beyond\n", n, back);
    assert_int_equal(n, 7 * 3 * 6);
    assert_int_equal(back, 0);
}

/* Stairs of 0.17 m risers whose treads alternate 0.28 and 0.40 m (the first riser at z = 1), for
 * rays straight down (what the probe casts). */
static bool uneven_ray(void *user, sk_vec3 o, sk_vec3 d, float max_distance, sk_terrain_hit *out) {
    (void)user;
    if (!(d.y < 0) || fabsf(d.x) > 1e-6f || fabsf(d.z) > 1e-6f) return false;
    float y = 0, edge = 1.0f;
    for (int k = 0; k < 40 && o.z >= edge; k++) y += 0.17f, edge += (k % 2) ? 0.40f : 0.28f;
    float dist = (o.y - y) / -d.y;
    if (!(dist >= 0) || dist > max_distance) return false;
    out->point = sk_vec3_make(o.x, y, o.z);
    out->normal = sk_vec3_make(0, 1, 0);
    out->distance = dist;
    return true;
}

/* Regular stairs ahead (ground_probe_treads), against the stairs' closed form: their tread depth
 * along the way looked (run / cos of the angle between it and the stairs), the risers' height (signed)
 * and the first riser's distance, for stairs up and down and looked at obliquely; and no stairs where
 * there are none: a 45 degree ramp and bumps (their heights change by as much between rays, but
 * evenly), stairs whose treads alternate 0.28 and 0.40 m, two risers only, a ledge. */
static void test_treads_ahead(void **state) {
    (void)state;
    static const struct {
        float rise, run, deg;
    } cases[] = {{0.17f, 0.28f, 0}, {-0.17f, 0.28f, 0}, {0.15f, 0.30f, 20}, {0.20f, 0.25f, -35}, {0.05f, 0.40f, 0}};
    int checked = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sk_terrain_shape st;
        ground_probe G;
        memset(&G, 0, sizeof G);
        sk_terrain_stairs_options o = {.rise = cases[k].rise, .run = cases[k].run, .start = sk_vec3_make(0, 0, 1)};
        assert_int_equal(sk_terrain_stairs(&st, &o, &G.terrain, NULL), SK_OK);
        G.max_up = 1.0f, G.max_down = 1.0f;
        float a = cases[k].deg * 3.14159265f / 180;
        sk_vec3 u = sk_vec3_make(sinf(a), 0, cosf(a));
        for (float from = 0.5f; from < 2.0f; from += 0.13f, checked++) {
            sk_vec3 o2 = sk_vec3_make(0, 0, from);
            float y0 = from < 1 ? 0 : cases[k].rise * (floorf((from - 1) / cases[k].run) + 1);
            G.center = sk_vec3_make(o2.x, y0, o2.z);
            float depth, rise, first;
            assert_true(ground_probe_treads(&G, o2, u, y0, &depth, &rise, &first));
            float want_first = from < 1 ? 1 - from : cases[k].run - fmodf(from - 1, cases[k].run);
            assert_float_equal(depth, cases[k].run / cosf(a), 0.002f);
            assert_float_equal(rise, cases[k].rise, 1e-4f);
            assert_float_equal(first, want_first / cosf(a), 0.002f);
        }
    }
    /* no stairs */
    sk_terrain_shape st;
    ground_probe G;
    memset(&G, 0, sizeof G);
    G.max_up = 1.0f, G.max_down = 1.0f;
    float depth, rise, first;
    sk_terrain_ramp_options ro = {.angle = 3.14159265f / 4, .start = sk_vec3_make(0, 0, 0.5f)};
    assert_int_equal(sk_terrain_ramp(&st, &ro, &G.terrain, NULL), SK_OK);
    assert_false(ground_probe_treads(&G, sk_vec3_make(0, 0, 0), sk_vec3_make(0, 0, 1), 0, &depth, &rise, &first));
    sk_terrain_bumps_options bo = {.amplitude = 0.1f, .wavelength = 1.0f, .seed = 7};
    assert_int_equal(sk_terrain_bumps(&st, &bo, &G.terrain, NULL), SK_OK);
    int bumps = 0;
    for (float x = 0; x < 4; x += 0.25f, bumps++)
        assert_false(ground_probe_treads(&G, sk_vec3_make(x, 0, 0), sk_vec3_make(0, 0, 1), 0, &depth, &rise, &first));
    sk_terrain_stairs_options two = {.rise = 0.17f, .run = 0.28f, .start = sk_vec3_make(0, 0, 1), .count = 2};
    assert_int_equal(sk_terrain_stairs(&st, &two, &G.terrain, NULL), SK_OK);
    assert_false(ground_probe_treads(&G, sk_vec3_make(0, 0, 0.5f), sk_vec3_make(0, 0, 1), 0, &depth, &rise, &first));
    /* uneven treads: a terrain callback of the test's own, risers at 1.00, 1.28, 1.68, 1.96, 2.36, ... */
    G.terrain = (sk_terrain){.raycast = uneven_ray, .user = NULL};
    assert_false(ground_probe_treads(&G, sk_vec3_make(0, 0, 0.5f), sk_vec3_make(0, 0, 1), 0, &depth, &rise, &first));
    printf("  treads ahead: %d looks at five stairs agree with their closed form; a ramp, %d looks at bumps, two "
           "risers and uneven treads are not stairs\n", checked, bumps);
    assert_int_equal(checked, 5 * 12);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_retreat), cmocka_unit_test(test_jitter_and_sweep),
                                       cmocka_unit_test(test_long_foot), cmocka_unit_test(test_nearly_filled_tread),
                                       cmocka_unit_test(test_treads_ahead)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
