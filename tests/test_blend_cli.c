/* `skelanim sample` with blends and state machines: the CLI's pose equals the
 * library's for the same request, errors name the problem, and the InterpolationTest
 * three.js blend oracle's command line (header.conventions.commandLine) reproduces
 * its translations/scales. */
#include "support.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run_result { int status; char *out; char *err; } run_result;

static run_result run(const char *args) {
    const char *cli = getenv("SK_CLI");
    assert_non_null(cli);
    char cmd[8192], errp[64];
    snprintf(errp, sizeof errp, "/tmp/sk_blend_cli_%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>%s", sk_test_source_dir(), cli, args, errp);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 20, n = 0, k;
    char *buf = malloc(cap);
    while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += k;
        if (cap - n < 4096) buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    int st = pclose(p);
    char *e = sk_test_read_file(errp, NULL);
    remove(errp);
    run_result r = {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), buf, e ? e : strdup("")};
    return r;
}

static void expect_fail(const char *args, const char *needle) {
    run_result r = run(args);
    if (r.status != 1 || !strstr(r.err, needle)) fprintf(stderr, "args: %s\nstatus %d\nstderr: %s\n", args, r.status, r.err);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, needle));
    free(r.out);
    free(r.err);
}

static const cJSON *node_local(const cJSON *root, int node) {
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(root, "nodes"))
        if (cJSON_GetObjectItem(n, "index")->valueint == node) return cJSON_GetObjectItem(n, "local");
    return NULL;
}

static void test_cli_blend_matches_library(void **st) {
    (void)st;
    run_result r = run("sample @mannequin --clip walk --weight 0.3 --clip run --weight 0.7 --clip idle --weight 0.2 "
                       "--mask spine --time 0.61 --json");
    assert_int_equal(r.status, 0);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "blend")), 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "clip"), "name")->valuestring, "walk");
    /* the same blend through the library */
    sk_asset *a;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    const sk_skeleton *s = a->skeleton;
    uint32_t n = s->joint_count;
    sk_transform *p = malloc(sizeof(sk_transform) * n * 4);
    float *mask = malloc(sizeof(float) * n);
    sk_mask_fill(s, mask, 0.0f);
    sk_mask_set_subtree(s, "spine", 1.0f, mask, NULL);
    sk_clip_sample(a->clips[1], s, 0.61, SK_LOOP_REPEAT, SK_POSE_OF(s, p, NULL), NULL);
    sk_clip_sample(a->clips[2], s, 0.61, SK_LOOP_REPEAT, SK_POSE_OF(s, p + n, NULL), NULL);
    sk_clip_sample(a->clips[0], s, 0.61, SK_LOOP_REPEAT, SK_POSE_OF(s, p + 2 * n, NULL), NULL);
    sk_blend_input in[3] = {{SK_POSE_OF(s, p, NULL), 0.3f, NULL, NULL}, {SK_POSE_OF(s, p + n, NULL), 0.7f, NULL, NULL}, {SK_POSE_OF(s, p + 2 * n, NULL), 0.2f, mask, NULL}};
    assert_int_equal(sk_blend_poses(s, in, 3, NULL, SK_POSE_OF(s, p + 3 * n, NULL), NULL), SK_OK);
    for (uint32_t j = 0; j < n; j++) {
        const cJSON *l = node_local(root, (int)a->joint_to_node[j]);
        if (!l) continue;
        const cJSON *t = cJSON_GetObjectItem(l, "t"), *q = cJSON_GetObjectItem(l, "r");
        for (int k = 0; k < 3; k++) assert_true(fabs(cJSON_GetArrayItem(t, k)->valuedouble - (&p[3 * n + j].t.x)[k]) < 1e-6);
        for (int k = 0; k < 4; k++) assert_true(fabs(cJSON_GetArrayItem(q, k)->valuedouble - (&p[3 * n + j].r.x)[k]) < 1e-6);
    }
    free(p);
    free(mask);
    sk_asset_destroy(a);
    cJSON_Delete(root);
    free(r.out);
    free(r.err);
}

static void test_cli_graph(void **st) {
    (void)st;
    run_result r = run("sample @mannequin --graph tests/data/blend/locomotion.json --set speed=2.5 --steps 0.0166667x30,0.05x4");
    if (r.status) fprintf(stderr, "%s\n", r.err);
    assert_int_equal(r.status, 0);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    const cJSON *g = cJSON_GetObjectItem(root, "graph");
    assert_string_equal(cJSON_GetObjectItem(g, "current")->valuestring, "move");
    assert_true(fabs(cJSON_GetObjectItem(root, "time")->valuedouble - (30 * 0.0166667 + 0.2)) < 1e-5);
    /* after 0.7 s the 0.3 s fade is over: one state at weight 1 */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "states")), 1);
    const cJSON *rm = cJSON_GetObjectItem(cJSON_GetObjectItem(g, "root_motion"), "translation");
    assert_true(cJSON_GetArrayItem(rm, 2)->valuedouble > 0.5); /* walked forward */
    assert_non_null(cJSON_GetObjectItem(root, "nodes"));
    cJSON_Delete(root);
    free(r.out);
    free(r.err);
    /* crouch while moving slowly: the nested machine is listed at depth 1 */
    r = run("sample @mannequin --graph tests/data/blend/locomotion.json --set crouch=true --set speed=0.5 --steps 0.1x10");
    assert_int_equal(r.status, 0);
    root = cJSON_Parse(r.out);
    g = cJSON_GetObjectItem(root, "graph");
    assert_string_equal(cJSON_GetObjectItem(g, "current")->valuestring, "crouching");
    const cJSON *sj;
    bool sneak = false;
    cJSON_ArrayForEach(sj, cJSON_GetObjectItem(g, "states"))
        if (!strcmp(cJSON_GetObjectItem(sj, "name")->valuestring, "sneak") && cJSON_GetObjectItem(sj, "depth")->valueint == 1)
            sneak = true;
    assert_true(sneak);
    cJSON_Delete(root);
    free(r.out);
    free(r.err);
}

static void test_cli_errors(void **st) {
    (void)st;
    expect_fail("sample @mannequin --clip walk --mask nope --clip run --time 1", "no joint named 'nope'");
    expect_fail("sample @mannequin --weight 0.5 --time 1", "--weight must follow a --clip");
    expect_fail("sample @mannequin --clip walk --clip run --blend-mode cubic --time 1", "expected nlerp or slerp");
    expect_fail("sample @mannequin --graph tests/data/blend/locomotion.json --set sped=1 --steps 0.1", "no parameter 'sped'");
    expect_fail("sample @mannequin --graph tests/data/blend/locomotion.json --set crouch=maybe --steps 0.1", "is a bool");
    expect_fail("sample @mannequin --graph tests/data/blend/locomotion.json --steps 0.1x", "--steps");
    expect_fail("sample @mannequin --graph tests/data/blend/locomotion.json --time 1", "drop --time");
    expect_fail("sample @mannequin --graph /nonexistent.json --steps 0.1", "/nonexistent.json: cannot open");
    expect_fail("sample @mannequin --clip walk --set speed=1 --time 1", "need --graph");
}

/* The InterpolationTest blend oracle's command line, e.g. equal_0+1 at t0.37. */
static void test_cli_oracle_command(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char path[1024], args[2048];
    snprintf(path, sizeof path, "%s/assets/gltf/InterpolationTest/oracle.blend.three.json", shared);
    char *text = sk_test_read_file(path, NULL);
    assert_non_null(text);
    cJSON *orc = cJSON_Parse(text);
    int checked = 0;
    const cJSON *cs;
    cJSON_ArrayForEach(cs, cJSON_GetObjectItem(orc, "cases")) {
        const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cs, "clips"), 0);
        const cJSON *c1 = cJSON_GetArrayItem(cJSON_GetObjectItem(cs, "clips"), 1);
        const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItem(cs, "samples"), 1);
        double t = cJSON_GetObjectItem(smp, "time")->valuedouble;
        snprintf(args, sizeof args,
                 "sample '%s/assets/gltf/InterpolationTest/InterpolationTest.glb' --clip %d --weight %.9g --clip %d "
                 "--weight %.9g --time %.17g --loop repeat --blend-mode slerp --json",
                 shared, cJSON_GetObjectItem(c0, "index")->valueint, cJSON_GetObjectItem(c0, "weight")->valuedouble,
                 cJSON_GetObjectItem(c1, "index")->valueint, cJSON_GetObjectItem(c1, "weight")->valuedouble, t);
        run_result r = run(args);
        assert_int_equal(r.status, 0);
        cJSON *out = cJSON_Parse(r.out);
        const cJSON *nd;
        cJSON_ArrayForEach(nd, cJSON_GetObjectItem(smp, "nodes")) {
            const cJSON *l = node_local(out, cJSON_GetObjectItem(nd, "node")->valueint);
            assert_non_null(l);
            for (int k = 0; k < 3; k++) {
                assert_true(fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(l, "t"), k)->valuedouble -
                                 cJSON_GetArrayItem(cJSON_GetObjectItem(nd, "t"), k)->valuedouble) < 1e-4);
                assert_true(fabs(cJSON_GetArrayItem(cJSON_GetObjectItem(l, "s"), k)->valuedouble -
                                 cJSON_GetArrayItem(cJSON_GetObjectItem(nd, "s"), k)->valuedouble) < 1e-4);
            }
            double dp = 0, dm = 0;
            for (int k = 0; k < 4; k++) {
                double a = cJSON_GetArrayItem(cJSON_GetObjectItem(l, "r"), k)->valuedouble;
                double b = cJSON_GetArrayItem(cJSON_GetObjectItem(nd, "r"), k)->valuedouble;
                dp = fmax(dp, fabs(a - b));
                dm = fmax(dm, fabs(a + b));
            }
            assert_true(fmin(dp, dm) < 1e-4);
            checked++;
        }
        cJSON_Delete(out);
        free(r.out);
        free(r.err);
    }
    assert_true(checked > 50);
    cJSON_Delete(orc);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_blend_matches_library), cmocka_unit_test(test_cli_graph),
        cmocka_unit_test(test_cli_errors), cmocka_unit_test(test_cli_oracle_command),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
