/* State machine: JSON loading with path-named errors, and a scripted run on
 * the mannequin that checks the active states and weights at every step and
 * that no frame moves any joint (world position) by more than the clips
 * themselves move in one frame — also while transitions are interrupted. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static const char *GRAPH =
    "{\"root_motion\": {\"joint\": \"hips\"},"
    " \"parameters\": ["
    "  {\"name\": \"speed\", \"type\": \"float\", \"default\": 0},"
    "  {\"name\": \"crouch\", \"type\": \"bool\"},"
    "  {\"name\": \"wave\", \"type\": \"trigger\"}],"
    " \"machine\": {\"initial\": \"idle\","
    "  \"states\": ["
    "   {\"name\": \"idle\", \"clip\": \"idle\"},"
    "   {\"name\": \"move\", \"blendspace\": {\"parameters\": [\"speed\"],"
    "      \"samples\": [{\"clip\": \"walk\", \"at\": [1.4]}, {\"clip\": \"run\", \"at\": [3.5]}]}},"
    "   {\"name\": \"crouching\", \"machine\": {\"initial\": \"hold\","
    "      \"states\": [{\"name\": \"hold\", \"clip\": \"crouch\"}, {\"name\": \"sneak\", \"clip\": \"walk\", \"speed\": 0.5}],"
    "      \"transitions\": ["
    "        {\"from\": \"hold\", \"to\": \"sneak\", \"duration\": 0.3, \"conditions\": [{\"param\": \"speed\", \"op\": \">\", \"value\": 0.1}]},"
    "        {\"from\": \"sneak\", \"to\": \"hold\", \"duration\": 0.3, \"conditions\": [{\"param\": \"speed\", \"op\": \"<=\", \"value\": 0.1}]}]}},"
    "   {\"name\": \"oneshot\", \"clip\": \"crouch\", \"loop\": \"clamp\", \"speed\": 3}"
    "  ],"
    "  \"transitions\": ["
    "   {\"from\": \"*\", \"to\": \"crouching\", \"duration\": 0.4, \"curve\": \"smoothstep\", \"conditions\": [{\"param\": \"crouch\"}]},"
    "   {\"from\": \"crouching\", \"to\": \"idle\", \"duration\": 0.4, \"conditions\": [{\"param\": \"crouch\", \"value\": false}]},"
    "   {\"from\": \"idle\", \"to\": \"move\", \"duration\": 0.3, \"sync\": true, \"conditions\": [{\"param\": \"speed\", \"op\": \">\", \"value\": 0.1}]},"
    "   {\"from\": \"move\", \"to\": \"idle\", \"duration\": 0.4, \"curve\": \"smoothstep\", \"conditions\": [{\"param\": \"speed\", \"op\": \"<=\", \"value\": 0.1}]},"
    "   {\"from\": \"idle\", \"to\": \"oneshot\", \"duration\": 0.3, \"conditions\": [{\"param\": \"wave\"}]},"
    "   {\"from\": \"oneshot\", \"to\": \"idle\", \"duration\": 0.3, \"exit_time\": 1.0}"
    "  ]}}";

static sk_asset *mannequin(void) {
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    return a;
}

static void expect_error(const sk_asset *a, const char *json, const char *needle) {
    sk_graph *g = NULL;
    sk_error err = {0};
    sk_result r = sk_graph_load_json(json, strlen(json), a->skeleton, a->clips, a->clip_count, NULL, &g, &err);
    if (r == SK_OK || !strstr(err.message, needle)) {
        fprintf(stderr, "expected an error containing \"%s\", got %d: %s\n", needle, (int)r, err.message);
        fail();
    }
    assert_null(g);
}

static void test_graph_errors(void **st) {
    (void)st;
    sk_asset *a = mannequin();
    expect_error(a, "{", "invalid JSON");
    expect_error(a, "[]", "expected an object");
    expect_error(a, "{\"parameters\": []}", "/machine: missing");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"clip\": \"jog\"}]}}",
                 "/machine/states/0/clip: no clip named 'jog' (clips: idle, walk, run, crouch, walk_back, strafe_left, strafe_right)");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"clip\": \"idle\"}, {\"name\": \"a\", \"clip\": \"run\"}]}}",
                 "/machine/states/1/name: duplicate state name 'a'");
    expect_error(a, "{\"machine\": {\"initial\": \"b\", \"states\": [{\"name\": \"a\", \"clip\": \"idle\"}]}}",
                 "/machine/initial: no state named 'b'");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"clip\": \"idle\"}],"
                    " \"transitions\": [{\"from\": \"a\", \"to\": \"x\", \"conditions\": []}]}}",
                 "/machine/transitions/0/to: no state named 'x'");
    expect_error(a, "{\"parameters\": [{\"name\": \"s\", \"type\": \"float\"}], \"machine\": {\"states\": [{\"name\": \"a\", \"clip\": \"idle\"},"
                    "{\"name\": \"b\", \"clip\": \"run\"}], \"transitions\": [{\"from\": \"a\", \"to\": \"b\", \"conditions\": [{\"param\": \"s\", \"op\": \"~\", \"value\": 1}]}]}}",
                 "/machine/transitions/0/conditions/0/op: unknown op '~'");
    expect_error(a, "{\"parameters\": [{\"name\": \"s\", \"type\": \"float\"}], \"machine\": {\"states\": [{\"name\": \"a\", \"clip\": \"idle\"},"
                    "{\"name\": \"b\", \"clip\": \"run\"}], \"transitions\": [{\"from\": \"a\", \"to\": \"b\", \"conditions\": [{\"param\": \"t\", \"op\": \">\", \"value\": 1}]}]}}",
                 "/machine/transitions/0/conditions/0/param: no parameter named 't'");
    expect_error(a, "{\"parameters\": [{\"name\": \"s\", \"type\": \"int\"}], \"machine\": {}}", "/parameters/0/type: expected \"float\"");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"m\", \"machine\": {\"states\": [{\"name\": \"x\", \"blendspace\": "
                    "{\"parameters\": [\"nope\"], \"samples\": []}}]}}]}}",
                 "/machine/states/0/machine/states/0/blendspace/parameters/0: no parameter named 'nope'");
    expect_error(a, "{\"parameters\": [{\"name\": \"s\", \"type\": \"float\"}], \"machine\": {\"states\": [{\"name\": \"x\", \"blendspace\": "
                    "{\"parameters\": [\"s\"], \"samples\": [{\"clip\": \"walk\", \"at\": [1]}, {\"clip\": \"run\", \"at\": [1]}]}}]}}",
                 "/machine/states/0/blendspace/samples: blend space: samples 0 and 1 are at the same point");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"clip\": \"idle\", \"blendspace\": {}}]}}",
                 "needs exactly one of");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"clip\": \"idle\"}, {\"name\": \"b\", \"clip\": \"run\"}],"
                    " \"transitions\": [{\"from\": \"a\", \"to\": \"b\"}]}}",
                 "/machine/transitions/0: a transition needs conditions or an exit_time");
    /* JSON syntax: SK_ERR_PARSE with the byte and what is wrong there; text
     * that is not JSON (a byte order mark, a leading zero, a control
     * character inside a string, trailing data) included */
    expect_error(a, "{", "invalid JSON near byte 1: unexpected end of the text");
    expect_error(a, "", "invalid JSON near byte 0: unexpected end of the text");
    expect_error(a, "\xef\xbb\xbf{\"machine\": {}}", "invalid JSON near byte 0: unexpected character");
    expect_error(a, "{\"parameters\": [{\"name\": \"s\", \"type\": \"float\", \"default\": 01}], \"machine\": {}}",
                 "invalid JSON near byte 59: expected ',' or '}'");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\tb\", \"clip\": \"idle\"}]}}",
                 "invalid JSON near byte 35: control character in a string");
    expect_error(a, "{\"machine\": {}} x", "invalid JSON near byte 16: trailing data after the JSON value");
    sk_graph *g = NULL;
    sk_error err;
    assert_int_equal(sk_graph_load_json("[1, 2", 5, a->skeleton, a->clips, a->clip_count, NULL, &g, &err), SK_ERR_PARSE);
    assert_string_equal(err.message, "invalid JSON near byte 5: unexpected end of the text");
    assert_null(g);
    /* nesting beyond the reader's limit */
    char deep[1100];
    memset(deep, '[', 1001);
    deep[1001] = 0;
    assert_int_equal(sk_graph_load_json(deep, 1001, a->skeleton, a->clips, a->clip_count, NULL, &g, &err), SK_ERR_LIMIT);
    assert_non_null(strstr(err.message, "invalid JSON near byte 1000: nesting deeper than 1000 levels"));
    /* a syntax error in a file: the message starts with the file's name */
    char path[1024];
    const char *bin = getenv("SK_BINARY_DIR");
    snprintf(path, sizeof path, "%s/statemachine_broken.json", bin && *bin ? bin : ".");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"machine\": [", f);
    fclose(f);
    assert_int_equal(sk_graph_load_file(path, a->skeleton, a->clips, a->clip_count, NULL, NULL, &g, &err), SK_ERR_PARSE);
    assert_null(g);
    assert_int_equal(strncmp(err.message, path, strlen(path)), 0);
    assert_string_equal(err.message + strlen(path), ": invalid JSON near byte 13: unexpected end of the text");
    remove(path);
    /* file loading names the file */
    assert_int_equal(sk_graph_load_file("/nonexistent/g.json", a->skeleton, a->clips, a->clip_count, NULL, NULL, &g, &err), SK_ERR_IO);
    assert_non_null(strstr(err.message, "/nonexistent/g.json"));
    sk_asset_destroy(a);
}

/* Largest joint displacement (world space) between two poses. */
static double max_move(const sk_mat4 *a, const sk_mat4 *b, uint32_t n) {
    double m = 0;
    for (uint32_t j = 0; j < n; j++) {
        double dx = a[j].m[12] - b[j].m[12], dy = a[j].m[13] - b[j].m[13], dz = a[j].m[14] - b[j].m[14];
        m = fmax(m, sqrt(dx * dx + dy * dy + dz * dz));
    }
    return m;
}

/* Largest one-frame motion of any joint when a clip plays alone (at the given speed). */
static double clip_frame_motion(const sk_asset *a, const sk_clip *c, double dt, double speed, sk_transform *l, sk_mat4 *w0,
                                sk_mat4 *w1) {
    double m = 0, d = sk_clip_duration(c);
    uint32_t n = a->skeleton->joint_count;
    sk_root_motion *rm;
    assert_int_equal(sk_root_motion_create(c, a->skeleton, 0, NULL, &rm, NULL), SK_OK);
    for (double t = 0; t < d; t += dt) { /* in place (root motion taken out), as the graph plays it */
        sk_clip_sample(c, a->skeleton, t * speed, SK_LOOP_REPEAT, SK_POSE_OF(a->skeleton, l, NULL), NULL);
        sk_root_motion_strip(rm, SK_POSE_OF(a->skeleton, l, NULL), NULL);
        sk_local_to_model(a->skeleton, SK_POSE_OF(a->skeleton, l, NULL), NULL, w0, (a->skeleton)->joint_count, NULL);
        sk_clip_sample(c, a->skeleton, (t + dt) * speed, SK_LOOP_REPEAT, SK_POSE_OF(a->skeleton, l, NULL), NULL);
        sk_root_motion_strip(rm, SK_POSE_OF(a->skeleton, l, NULL), NULL);
        sk_local_to_model(a->skeleton, SK_POSE_OF(a->skeleton, l, NULL), NULL, w1, (a->skeleton)->joint_count, NULL);
        m = fmax(m, max_move(w0, w1, n));
    }
    sk_root_motion_destroy(rm);
    return m;
}

static float state_weight(const sk_graph_instance *in, const char *name, uint32_t depth) {
    sk_graph_state_info s[32];
    uint32_t n = sk_graph_active_states(in, s, 32);
    for (uint32_t i = 0; i < n && i < 32; i++)
        if (s[i].depth == depth && !strcmp(s[i].name, name)) return s[i].weight;
    return 0.0f;
}

static void test_graph_run(void **st) {
    (void)st;
    sk_asset *a = mannequin();
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    sk_graph *g = NULL;
    sk_error err;
    if (sk_graph_load_json(GRAPH, strlen(GRAPH), s, a->clips, a->clip_count, NULL, &g, &err) != SK_OK) {
        fprintf(stderr, "%s\n", err.message);
        fail();
    }
    assert_int_equal(sk_graph_param_count(g), 3);
    sk_graph_instance *in;
    assert_int_equal(sk_graph_instance_create(g, NULL, &in, NULL), SK_OK);
    assert_int_equal(sk_graph_set_float(in, "crouch", 1, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "'crouch' is a bool, not a float"));
    assert_int_equal(sk_graph_set_float(in, "sped", 1, &err), SK_ERR_INVALID_ARGUMENT);

    sk_transform *l = malloc(sizeof(sk_transform) * n);
    sk_mat4 *w0 = malloc(sizeof(sk_mat4) * n), *w1 = malloc(sizeof(sk_mat4) * n);
    const double dt = 1.0 / 60.0;
    /* the bound: the largest one-frame motion of any clip the graph plays */
    double bound = 0;
    for (uint32_t c = 0; c < a->clip_count; c++) bound = fmax(bound, clip_frame_motion(a, a->clips[c], dt, 1.0, l, w0, w1));
    bound = fmax(bound, clip_frame_motion(a, a->clips[3], dt, 3.0, l, w0, w1)); /* the 3x one-shot */

    /* sanity: a hard cut idle -> run (both in place) jumps far more than that (the check can fail) */
    sk_root_motion *rm_run;
    assert_int_equal(sk_root_motion_create(a->clips[2], s, 0, NULL, &rm_run, NULL), SK_OK);
    sk_clip_sample(a->clips[0], s, 0.5, SK_LOOP_REPEAT, SK_POSE_OF(s, l, NULL), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, l, NULL), NULL, w0, (s)->joint_count, NULL);
    sk_clip_sample(a->clips[2], s, 0.5, SK_LOOP_REPEAT, SK_POSE_OF(s, l, NULL), NULL);
    sk_root_motion_strip(rm_run, SK_POSE_OF(s, l, NULL), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, l, NULL), NULL, w1, (s)->joint_count, NULL);
    sk_root_motion_destroy(rm_run);
    printf("one-frame motion bound %.4f m; a hard cut idle->run would move %.4f m\n", bound, max_move(w0, w1, n));
    assert_true(max_move(w0, w1, n) > 1.5 * bound);

    assert_int_equal(sk_graph_evaluate(in, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
    sk_local_to_model(s, SK_POSE_OF(s, l, NULL), NULL, w0, (s)->joint_count, NULL);
    double worst = 0;
    sk_root_delta travel = sk_root_delta_identity(), mark = travel;
    double t_fire = -1.0;
    int steps = (int)(9.0 / dt);
    for (int i = 1; i <= steps; i++) {
        double t = i * dt;
        /* script (parameters change continuously where they drive a blend space, as a motor's output does) */
        float speed = t < 1.0 ? 0.0f : (t < 2.0 ? (float)(t - 1.0) * 3.0f : (t < 3.5 ? 3.0f : (t < 4.0 ? 6.0f * (float)(4.0 - t) : (t < 5.5 ? 0.0f : (t < 6.5 ? 1.0f : 0.0f)))));
        bool crouch = (t >= 2.5 && t < 2.65) || (t >= 4.5 && t < 6.5);
        sk_graph_set_float(in, "speed", speed, NULL);
        sk_graph_set_bool(in, "crouch", crouch, NULL);
        if (fabs(t - 7.5) < dt / 2) sk_graph_set_trigger(in, "wave", NULL);
        sk_graph_update(in, (float)dt);
        travel = sk_root_delta_compose(travel, sk_graph_root_motion(in));
        if (fabs(t - 2.1) < dt / 2) mark = travel;
        if (fabs(t - 2.5) < dt / 2) {
            /* root motion of the blend space at speed 3: walk (1.493 m per 1.0667 s) and run (2.45 m per 0.7 s)
             * phase-synced with weights w: distance per cycle / cycle length */
            float w[2], q = 3.0f, pts[2] = {1.4f, 3.5f};
            assert_int_equal(sk_blendspace_weights(pts, 2, 1, &q, SK_BLENDSPACE_CARTESIAN, w, NULL), SK_OK);
            double dist[2], dur[2];
            for (int k = 0; k < 2; k++) {
                sk_root_motion *rm;
                assert_int_equal(sk_root_motion_create(a->clips[1 + k], s, 0, NULL, &rm, NULL), SK_OK);
                dur[k] = sk_clip_duration(a->clips[1 + k]);
                dist[k] = sk_root_motion_between(rm, 0.0, dur[k]).translation.z;
                sk_root_motion_destroy(rm);
            }
            double v = (w[0] * dist[0] + w[1] * dist[1]) / (w[0] * dur[0] + w[1] * dur[1]);
            sk_vec3 dp = sk_vec3_sub(travel.translation, mark.translation);
            double moved = sqrt(dp.x * dp.x + dp.z * dp.z);
            printf("root motion at speed 3: %.3f m in 0.4 s, expected %.3f m (%.3f m/s)\n", moved, v * 0.4, v);
            NEAR(moved, v * 0.4, 0.03 * v * 0.4);
        }
        assert_int_equal(sk_graph_evaluate(in, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
        sk_local_to_model(s, SK_POSE_OF(s, l, NULL), NULL, w1, (s)->joint_count, NULL);
        double mv = max_move(w0, w1, n);
        worst = fmax(worst, mv);
        if (mv > bound) {
            fprintf(stderr, "t=%.3f: joints moved %.4f m in one frame (bound %.4f), current %s\n", t, mv, bound,
                    sk_graph_current_state(in));
            fail();
        }
        memcpy(w0, w1, sizeof(sk_mat4) * n);
        /* weights of each machine level sum to 1 */
        sk_graph_state_info si[32];
        uint32_t ns = sk_graph_active_states(in, si, 32);
        double sum0 = 0;
        for (uint32_t k = 0; k < ns; k++)
            if (si[k].depth == 0) sum0 += si[k].weight;
        NEAR(sum0, 1.0, 1e-5);
        /* expected states at checkpoints */
        const char *cur = sk_graph_current_state(in);
        if (t < 1.0) assert_string_equal(cur, "idle");
        if (t > 1.04 && t < 2.5) assert_string_equal(cur, "move");
        if (t < 2.0 && t_fire < 0 && !strcmp(cur, "move")) t_fire = t;
        if (t_fire > 0 && t < t_fire + 0.3 - dt / 2) { /* linear 0.3 s idle->move fade, advanced in the firing update */
            double expect = (t - t_fire + dt) / 0.3;
            NEAR(state_weight(in, "move", 0), expect, 1e-4);
            NEAR(state_weight(in, "idle", 0), 1.0 - expect, 1e-4);
        }
        if (t > 1.5 && t < 2.5) { /* blend-space phases stay in sync after the synced transition */
            assert_int_equal(ns, state_weight(in, "idle", 0) > 0 ? 2 : 1);
        }
        if (t > 2.51 && t < 2.65) assert_string_equal(cur, "crouching");
        if (t > 2.69 && t < 3.5) assert_string_equal(cur, "move"); /* crouch released: back to idle, and on to move */
        if (fabs(t - 2.7) < dt / 2) {                               /* three states in flight at once */
            assert_true(state_weight(in, "crouching", 0) > 0.0f);
            assert_true(state_weight(in, "move", 0) > 0.0f);
            assert_true(state_weight(in, "idle", 0) > 0.0f);
        }
        if (t > 4.0 && t < 4.5) assert_string_equal(cur, "idle"); /* speed ramped down to 0 */
        if (t > 4.52 && t < 6.5) assert_string_equal(cur, "crouching");
        if (t > 4.52 && t < 5.5) NEAR(state_weight(in, "hold", 1), 1.0, 0); /* nested machine starts at its initial state */
        if (t > 5.52 && t < 6.5) assert_true(state_weight(in, "sneak", 1) > 0.0f);
        if (fabs(t - (5.5 + 1.0 / 60 + 0.3)) < dt / 2) NEAR(state_weight(in, "sneak", 1), 1.0, 1e-5);
        if (t > 6.55 && t < 7.5) assert_string_equal(cur, "idle");
        if (t > 7.52 && t < 8.45) assert_string_equal(cur, "oneshot"); /* trigger, then exit time 1 cycle at 3x speed */
        if (t > 8.55) assert_string_equal(cur, "idle");
    }
    printf("largest one-frame joint motion over the run: %.4f m (bound %.4f m)\n", worst, bound);
    assert_true(sk_graph_get_param(in, 2) == 0.0f); /* the trigger was consumed */
    free(l);
    free(w0);
    free(w1);
    sk_graph_instance_destroy(in);
    sk_graph_destroy(g);
    sk_asset_destroy(a);
}

/* External states (a pose the caller makes, e.g. the locomotor): the pose
 * source is called with the state's source name while the state has weight,
 * the evaluated pose is the source's pose crossfaded with the clip state's by
 * the fader's weights, sk_graph_source_weight reports those weights, "cycle"
 * drives exit_time, and a missing source is a clear error. */
typedef struct ext_src { int calls; char last[32]; float x; } ext_src;

static sk_result ext_pose(void *user, const char *source, sk_pose *out, sk_error *err) {
    ext_src *e = user;
    e->calls++;
    snprintf(e->last, sizeof e->last, "%s", source);
    for (uint32_t j = 0; j < out->joint_count; j++) out->local[j] = sk_transform_identity();
    out->local[0].t = sk_vec3_make(e->x, 0, 0); /* the marker of this source */
    (void)err;
    return SK_OK;
}

static void test_graph_external(void **st) {
    (void)st;
    sk_asset *a = mannequin();
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"external\": 3}]}}",
                 "/machine/states/0/external: expected the non-empty name of a pose source");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"external\": \"\"}]}}",
                 "/machine/states/0/external: expected the non-empty name");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"external\": \"loco\", \"cycle\": 0}]}}",
                 "/machine/states/0/cycle: expected seconds per cycle in [0.001, 3600]");
    expect_error(a, "{\"machine\": {\"states\": [{\"name\": \"a\", \"external\": \"loco\", \"clip\": \"idle\"}]}}",
                 "needs exactly one of \"clip\", \"blendspace\", \"machine\", \"external\"");
    static const char *J =
        "{\"parameters\": [{\"name\": \"go\", \"type\": \"bool\"}],"
        " \"machine\": {\"initial\": \"idle\", \"states\": ["
        "   {\"name\": \"idle\", \"clip\": \"idle\"},"
        "   {\"name\": \"walking\", \"external\": \"locomotion\", \"cycle\": 0.5}],"
        "  \"transitions\": ["
        "   {\"from\": \"idle\", \"to\": \"walking\", \"duration\": 0.4, \"conditions\": [{\"param\": \"go\"}]},"
        "   {\"from\": \"walking\", \"to\": \"idle\", \"duration\": 0.4, \"exit_time\": 3,"
        "    \"conditions\": [{\"param\": \"go\", \"value\": false}]}]}}";
    const sk_skeleton *s = a->skeleton;
    sk_graph *g = NULL;
    sk_graph_instance *in = NULL;
    sk_error err = {0};
    assert_int_equal(sk_graph_load_json(J, strlen(J), s, a->clips, a->clip_count, NULL, &g, &err), SK_OK);
    assert_int_equal(sk_graph_instance_create(g, NULL, &in, &err), SK_OK);
    assert_int_equal(sk_graph_source_count(g, "locomotion"), 1);
    assert_int_equal(sk_graph_source_count(g, "idle"), 0); /* a clip state, not a source */
    uint32_t n = s->joint_count;
    sk_transform *loc = calloc(n, sizeof *loc), *idle = calloc(n, sizeof *idle);
    sk_pose pose = sk_pose_view(loc, n, NULL, 0), ip = sk_pose_view(idle, n, NULL, 0);
    /* idle only: the source is not called */
    ext_src e = {0, "", 1.5f};
    sk_graph_set_pose_source(in, ext_pose, &e);
    sk_graph_update(in, 1.0 / 60);
    assert_int_equal(sk_graph_evaluate(in, &pose, &err), SK_OK);
    assert_int_equal(e.calls, 0);
    assert_true(sk_graph_source_weight(in, "locomotion") == 0.0f);
    /* go: a 0.4 s linear fade into the external state */
    sk_graph_set_bool(in, "go", true, NULL);
    int checked = 0;
    for (int f = 1; f <= 30; f++) {
        sk_graph_update(in, 1.0 / 60);
        float w = sk_graph_source_weight(in, "locomotion");
        assert_true(fabsf(w - fminf(1.0f, (float)f / 24.0f)) < 1e-4f);
        assert_int_equal(sk_graph_evaluate(in, &pose, &err), SK_OK);
        assert_string_equal(e.last, "locomotion");
        /* the idle clip at its own time, blended with the source's marker by w */
        sk_graph_state_info info[4];
        uint32_t na = sk_graph_active_states(in, info, 4);
        if (w < 1.0f) {
            assert_int_equal(na, 2);
            double t = 0;
            for (uint32_t k = 0; k < na; k++)
                if (!strcmp(info[k].name, "idle")) t = info[k].normalized_time * sk_clip_duration(a->clips[0]);
            assert_int_equal(sk_clip_sample(a->clips[0], s, t, SK_LOOP_REPEAT, &ip, &err), SK_OK);
            float want = (1.0f - w) * idle[0].t.x + w * e.x;
            assert_true(fabsf(loc[0].t.x - want) < 1e-4f);
        } else {
            assert_true(loc[0].t.x == e.x);
        }
        checked++;
    }
    assert_int_equal(checked, 30);
    assert_int_equal(e.calls, 30);
    /* exit_time 3 cycles of 0.5 s: the way back waits until 1.5 s in the state */
    sk_graph_set_bool(in, "go", false, NULL);
    double t_in = 30.0 / 60;
    while (sk_graph_source_weight(in, "locomotion") == 1.0f && t_in < 5) {
        sk_graph_update(in, 1.0 / 60);
        t_in += 1.0 / 60;
    }
    printf("external state left after %.3f s in it (exit_time 3 x 0.5 s cycles)\n", t_in);
    assert_true(t_in >= 1.5 && t_in < 1.5 + 2.0 / 60);
    /* no source: a clear error naming the state */
    sk_graph_set_pose_source(in, NULL, NULL);
    assert_int_not_equal(sk_graph_evaluate(in, &pose, &err), SK_OK);
    assert_non_null(strstr(err.message, "state 'walking' takes its pose from 'locomotion': no pose source is set"));
    /* an unknown source name weighs nothing */
    assert_true(sk_graph_source_weight(in, "nothing") == 0.0f);
    assert_true(sk_graph_source_weight(NULL, "locomotion") == 0.0f);
    free(loc), free(idle);
    sk_graph_instance_destroy(in);
    sk_graph_destroy(g);
    sk_asset_destroy(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_errors),
        cmocka_unit_test(test_graph_run),
        cmocka_unit_test(test_graph_external),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
