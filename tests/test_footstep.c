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

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_retreat), cmocka_unit_test(test_jitter_and_sweep),
                                       cmocka_unit_test(test_long_foot)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
