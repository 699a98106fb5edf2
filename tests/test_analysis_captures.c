/* The motion analysis on real captures: every walk and run in
 * ../shared/mocap (CMU; --cycle auto as the tool does), the held-out walk of
 * tests/data/mocap, and the 18 walks and runs of tests/data/cmu-walks.
 *
 * The reference is a flat-foot detector written here, independently of the
 * analysis (which follows heel and toe points in character space): the foot
 * is flat at a moment when both its ankle joint and its ball joint (the toe
 * joint, the pivot the foot rolls over) are
 *   - within FLAT_HEIGHT (2 cm) of their lowest height over the cycle (a
 *     planted capture joint creeps up by 1-2 cm over a stance: at 1 cm this
 *     reference ended 07_01's right stance at 17% of the cycle, while its
 *     foot stood for 27% by the 2 cm it rises before the heel comes off),
 *     and
 *   - moving horizontally slower than FLAT_SPEED (0.25 m/s) or 10% of the
 *     clip's speed when that is more (a run's: 0.35 m/s; the root joint's
 *     horizontal travel over the cycle), in world space (the clip's own root
 *     motion included), central differences over +-8 ms at 240 Hz;
 * heights are taken from the lowest within half a cycle (the capture floors
 * are not level); the planted phase is the longest run of such moments whose
 * middle falls in the cycle, gaps under 20 ms bridged (a capture's tremble).
 * The analysis' foot-land .. foot-lift must agree with it within 5% of the
 * cycle at both ends, and the planted phase must be a plausible share of the
 * cycle (walks 0.15-0.6, runs 0.08-0.4: before this test the analysis found
 * 0.05 on a CMU walk).
 *
 * tests/data/cmu-walks (its README) was run here once before anything was
 * chosen on it: 35 of its 36 feet agreed. The one that did not is listed as
 * an open gap with its difference as a bound that must not grow; every other
 * foot must agree. There the plausible share is asserted where the
 * reference's own share is plausible: 03_04 walks on uneven terrain, and its
 * right foot is flat for under a tenth of the cycle by the reference too. */
#include "support.h"

#include "skelanim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 240.0
#define FLAT_HEIGHT 0.02f /* m */
#define FLAT_SPEED 0.25f  /* m/s, or FLAT_SPEED_SHARE of the clip's speed when more (runs) */
#define FLAT_SPEED_SHARE 0.1f
#define GAP_S 0.02
#define AGREE 0.05 /* of the cycle */
#define CMU_SCALE 0.056444f

typedef enum { SHARED, HELD_OUT, WALKS } capture_set;

typedef struct capture {
    const char *file;
    bool run;
    capture_set set; /* ../shared/mocap/bvh; tests/data/mocap (held out: never used to tune the
                        analysis); tests/data/cmu-walks */
    const char *ankle[2], *ball[2]; /* left, right */
} capture;

/* A foot of tests/data/cmu-walks whose keytime is more than AGREE from the
 * reference (the first run): the bound its difference must stay under. */
typedef struct open_gap {
    const char *file;
    int foot;  /* 0 left, 1 right */
    int key;   /* 0 foot-land, 1 foot-lift */
    double bound;
} open_gap;

static const open_gap open_gaps[] = {
    {"08_06.bvh", 1, 1, 0.085}, /* foot-lift 0.080 after the reference's: a heel peeling off slowly (docs/locomotion.md) */
};

#define CMU_FEET(f, r) {f, r, WALKS, {"LeftFoot", "RightFoot"}, {"LeftToeBase", "RightToeBase"}}

static const capture captures[] = {
    {"02_01.bvh", false, SHARED, {"LeftFoot", "RightFoot"}, {"LeftToeBase", "RightToeBase"}},
    {"07_01_fbx2bvh.bvh", false, SHARED, {"LeftFoot", "RightFoot"}, {"LeftToeBase", "RightToeBase"}},
    {"131_01.bvh", false, SHARED, {"LeftAnkle", "RightAnkle"}, {"LeftToe", "RightToe"}},
    {"09_11_fbx2bvh.bvh", true, SHARED, {"LeftFoot", "RightFoot"}, {"LeftToeBase", "RightToeBase"}},
    {"08_02_fbx2bvh.bvh", false, HELD_OUT, {"LeftFoot", "RightFoot"}, {"LeftToeBase", "RightToeBase"}},
    CMU_FEET("03_04.bvh", false), CMU_FEET("07_03.bvh", false), CMU_FEET("07_05.bvh", false),
    CMU_FEET("07_06.bvh", false), CMU_FEET("07_07.bvh", false), CMU_FEET("07_08.bvh", false),
    CMU_FEET("07_09.bvh", false), CMU_FEET("07_10.bvh", false), CMU_FEET("07_11.bvh", false),
    CMU_FEET("08_03.bvh", false), CMU_FEET("08_05.bvh", false), CMU_FEET("08_06.bvh", false),
    CMU_FEET("08_08.bvh", false), CMU_FEET("08_09.bvh", false), CMU_FEET("08_10.bvh", false),
    CMU_FEET("09_08.bvh", true), CMU_FEET("09_09.bvh", true), CMU_FEET("09_10.bvh", true),
};

static double cdiff(double a, double b) {
    double d = a - b;
    return d - floor(d + 0.5);
}

static sk_vec3 joint_pos(const sk_mat4 *m) { return sk_vec3_make(m->m[12], m->m[13], m->m[14]); }

/* The reference planted phase of one foot: begin/end as cycle fractions
 * (returns its share of the cycle). The clip is followed from a cycle before
 * to a cycle after [c0, c1] (where it has them); a height is measured from
 * the lowest within half a cycle either side (the capture floors climb 2-3 cm
 * per cycle); of the runs whose middle lies in [c0, c1) the longest is the
 * planted phase. */
static double reference_phase(const sk_skeleton *s, const sk_clip *c, double c0, double c1, int32_t ankle,
                              int32_t ball, double *begin, double *end) {
    const uint32_t pad = 2; /* +-8 ms at 240 Hz */
    double dur = c1 - c0, clip_dur = sk_clip_duration(c);
    double t0 = fmax(0.0, c0 - dur), t1 = fmin(clip_dur, c1 + dur);
    uint32_t n = (uint32_t)floor((t1 - t0) * RATE) + 1, half = (uint32_t)(0.5 * dur * RATE);
    sk_vec3 *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    sk_mat4 *model = calloc(s->joint_count, sizeof *model);
    unsigned char *flat = calloc(n, 1);
    assert_true(a && b && local && model && flat);
    sk_vec3 r0 = sk_vec3_make(0, 0, 0), r1 = r0;
    for (uint32_t i = 0; i < n; i++) {
        double t = fmin(t0 + i / RATE, clip_dur);
        assert_int_equal(sk_clip_sample(c, s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, local, NULL), NULL), SK_OK);
        assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, model, s->joint_count, NULL), SK_OK);
        a[i] = joint_pos(&model[ankle]);
        b[i] = joint_pos(&model[ball]);
        if (fabs(t - c0) <= 0.5 / RATE) r0 = joint_pos(&model[0]);
        if (fabs(t - c1) <= 0.5 / RATE) r1 = joint_pos(&model[0]);
    }
    float limit = fmaxf(FLAT_SPEED, FLAT_SPEED_SHARE * hypotf(r1.x - r0.x, r1.z - r0.z) / (float)dur);
    for (uint32_t i = pad; i + pad < n; i++) {
        float amin = INFINITY, bmin = INFINITY;
        for (uint32_t k = i > half ? i - half : 0; k < n && k <= i + half; k++)
            amin = fminf(amin, a[k].y), bmin = fminf(bmin, b[k].y);
        float va = hypotf(a[i + pad].x - a[i - pad].x, a[i + pad].z - a[i - pad].z) * (float)(RATE / (2 * pad));
        float vb = hypotf(b[i + pad].x - b[i - pad].x, b[i + pad].z - b[i - pad].z) * (float)(RATE / (2 * pad));
        flat[i] = a[i].y - amin <= FLAT_HEIGHT && b[i].y - bmin <= FLAT_HEIGHT && va <= limit && vb <= limit;
    }
    /* Bridge short gaps, then the runs. */
    uint32_t gap = (uint32_t)(GAP_S * RATE);
    for (uint32_t i = 0; i + 1 < n; i++) {
        if (!flat[i] || flat[i + 1]) continue;
        for (uint32_t k = 2; k <= gap + 1 && i + k < n; k++)
            if (flat[i + k]) {
                for (uint32_t m = 1; m < k; m++) flat[i + m] = 1;
                break;
            }
    }
    uint32_t best = 0, best_start = 0;
    for (uint32_t i = 0, len = 0; i <= n; i++) {
        if (i < n && flat[i]) { len++; continue; }
        double mid = t0 + (i - 0.5 * (len + 1)) / RATE;
        if (len > best && mid >= c0 && mid < c1) { best = len; best_start = i - len; }
        len = 0;
    }
    if (!best) { /* no flat moment at all */
        *begin = *end = NAN;
        free(a), free(b), free(local), free(model), free(flat);
        return 0;
    }
    double tb = t0 + best_start / RATE, te = t0 + (best_start + best - 1) / RATE;
    *begin = (tb - c0) / dur - floor((tb - c0) / dur);
    *end = (te - c0) / dur - floor((te - c0) / dur);
    free(a), free(b), free(local), free(model), free(flat);
    return (te - tb) / dur;
}

static void test_captures(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    int checked = 0, held_out_agree = 0, widened = 0, walks_feet = 0, walks_agree = 0, gaps_seen = 0;
    for (size_t ci = 0; ci < sizeof captures / sizeof captures[0]; ci++) {
        const capture *cp = &captures[ci];
        char dir[1024], path[1200];
        if (cp->set == HELD_OUT) sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/mocap");
        else if (cp->set == WALKS) sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/cmu-walks");
        else sk_test_path(dir, sizeof dir, shared, "mocap/bvh");
        sk_test_path(path, sizeof path, dir, cp->file);
        sk_bvh_options bo = {0};
        bo.scale = CMU_SCALE;
        sk_asset *asset = NULL;
        sk_error err = {0};
        if (sk_bvh_load_file(path, &bo, &asset, &err) != SK_OK) fail_msg("%s: %s", path, err.message);
        const sk_skeleton *s = asset->skeleton;
        sk_leg_desc legs[2];
        assert_int_equal(sk_legs_find(s, legs, 2), 2);
        sk_motion_analysis_options o = {0};
        if (sk_motion_find_cycle(s, asset->clips[0], legs, 2, 0, NULL, &o.cycle_start, &o.cycle_end, &err) != SK_OK)
            fail_msg("%s: %s", cp->file, err.message);
        sk_motion_analysis *an = NULL;
        if (sk_motion_analyze(s, asset->clips[0], legs, 2, &o, NULL, &an, &err) != SK_OK)
            fail_msg("%s: %s", cp->file, err.message);
        for (int f = 0; f < 2; f++) {
            const sk_leg_analysis *L = &an->legs[f];
            int32_t ankle = sk_skeleton_find(s, cp->ankle[f]), ball = sk_skeleton_find(s, cp->ball[f]);
            assert_true(ankle >= 0 && ball >= 0);
            assert_int_equal(L->ankle_joint, ankle); /* the same foot */
            double rb, re;
            double share = reference_phase(s, asset->clips[0], o.cycle_start, o.cycle_end, ankle, ball, &rb, &re);
            double planted = L->foot_lift - L->foot_land;
            planted -= floor(planted);
            /* the seed's order: foot-land <= stance <= foot-lift (a planted phase that leaves the
             * stance out reads, to a runtime, as a foot planted the whole cycle) */
            double to_stance = L->stance_time - L->foot_land;
            to_stance -= floor(to_stance);
            assert_true(to_stance <= planted + 1e-6);
            double d0 = cdiff(L->foot_land, rb), d1 = cdiff(L->foot_lift, re);
            printf("  %s%-18s %-5s cycle %.3f..%.3f s: analysis land %.3f lift %.3f (%.3f)  reference %.3f..%.3f "
                   "(%.3f)  differences %+.3f %+.3f\n",
                   cp->set == HELD_OUT ? "held out: " : cp->set == WALKS ? "cmu-walks: " : "", cp->file, L->name, o.cycle_start, o.cycle_end, L->foot_land, L->foot_lift, planted, rb, re, share,
                   d0, d1);
            double lo = cp->run ? 0.08 : 0.15, hi = cp->run ? 0.4 : 0.6;
            bool agree = share > 0 && fabs(d0) <= AGREE && fabs(d1) <= AGREE;
            bool plausible = planted >= lo && planted <= hi;
            if (cp->set == WALKS) {
                const open_gap *gap = NULL;
                for (size_t g = 0; g < sizeof open_gaps / sizeof open_gaps[0]; g++)
                    if (!strcmp(open_gaps[g].file, cp->file) && open_gaps[g].foot == f) gap = &open_gaps[g];
                assert_true(share > 0); /* the reference finds a flat phase on each of these feet */
                if (gap) {
                    double d = fabs(gap->key ? d1 : d0);
                    if (d > gap->bound) fail_msg("%s %s: open gap %.3f grew past %.3f", cp->file, L->name, d, gap->bound);
                    printf("    (open gap: %.3f of the cycle from the reference, bound %.3f)\n", d, gap->bound);
                    gaps_seen++;
                } else if (!agree) {
                    fail_msg("cmu-walks %s %s: foot-land/-lift %.3f/%.3f, reference %.3f/%.3f: more than %.2f apart",
                             cp->file, L->name, L->foot_land, L->foot_lift, rb, re, AGREE);
                }
                if (share >= lo && share <= hi && !plausible)
                    fail_msg("cmu-walks %s %s: planted %.3f of the cycle (reference %.3f), outside %.2f..%.2f", cp->file,
                             L->name, planted, share, lo, hi);
                walks_feet++;
                walks_agree += agree;
            } else if (cp->set == HELD_OUT) { /* reported; asserted where the reference finds a flat phase */
                if (share > 0 && !agree) fail_msg("held out %s %s: more than %.2f of the cycle from the reference", cp->file, L->name, AGREE);
                if (share == 0) printf("    (held out: the reference finds no flat phase for this foot; not asserted)\n");
                held_out_agree += agree;
            } else {
                if (!agree)
                    fail_msg("%s %s: foot-land/-lift %.3f/%.3f, reference %.3f/%.3f: more than %.2f of the cycle apart",
                             cp->file, L->name, L->foot_land, L->foot_lift, rb, re, AGREE);
                if (!plausible)
                    fail_msg("%s %s: planted %.3f of the cycle, outside %.2f..%.2f", cp->file, L->name, planted, lo, hi);
            }
            checked++;
        }
        /* still_band: 0 is 0.03 of the leg; a wider band (0.04, what locomote --from gives
         * retargeted clips) keeps the stance and does not shorten a planted phase. */
        sk_motion_analysis_options o3 = o, o4 = o;
        o3.still_band = 0.03f;
        o4.still_band = SK_STILL_BAND_RETARGETED;
        sk_motion_analysis *an3 = NULL, *an4 = NULL;
        if (sk_motion_analyze(s, asset->clips[0], legs, 2, &o3, NULL, &an3, &err) != SK_OK ||
            sk_motion_analyze(s, asset->clips[0], legs, 2, &o4, NULL, &an4, &err) != SK_OK)
            fail_msg("%s: %s", cp->file, err.message);
        for (int f = 0; f < 2; f++) {
            const sk_leg_analysis *L = &an->legs[f], *L3 = &an3->legs[f], *L4 = &an4->legs[f];
            assert_true(L3->foot_land == L->foot_land && L3->foot_lift == L->foot_lift &&
                        L3->stance_time == L->stance_time);
            double p0 = L->foot_lift - L->foot_land, p4 = L4->foot_lift - L4->foot_land;
            p0 -= floor(p0), p4 -= floor(p4);
            printf("    %s: still band 0.04: planted %.3f (0.03: %.3f)\n", L->name, p4, p0);
            assert_true(L4->stance_time == L->stance_time);
            assert_true(cdiff(L4->foot_land, L->foot_land) <= 1e-6 && cdiff(L4->foot_lift, L->foot_lift) >= -1e-6);
            widened += p4 > p0 + 1e-6;
        }
        sk_motion_analysis_destroy(an3);
        sk_motion_analysis_destroy(an4);
        sk_motion_analysis_destroy(an);
        sk_asset_destroy(asset);
    }
    printf("  %d feet of %zu captures checked (held out: %d feet agree with the reference)\n", checked,
           sizeof captures / sizeof captures[0], held_out_agree);
    assert_int_equal(checked, 2 * (int)(sizeof captures / sizeof captures[0]));
    printf("  cmu-walks: %d feet of 18 captures, %d within %.2f of the reference; %d open gap(s)\n", walks_feet,
           walks_agree, AGREE, gaps_seen);
    assert_int_equal(walks_feet, 36);
    assert_int_equal(gaps_seen, (int)(sizeof open_gaps / sizeof open_gaps[0]));
    assert_int_equal(walks_agree + gaps_seen, walks_feet);
    printf("  still band 0.04: %d feet of %d planted longer\n", widened, checked);
    assert_true(widened > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_captures)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
