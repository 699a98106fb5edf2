/* The command-line tool as a user runs it: exit codes, messages, and the
 * `sample --json` format (documented in docs/sample-json.md), checked against
 * the three.js oracle where ../shared is present. */
#include "support.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run_result { int status; char *out; } run_result;

static run_result run(const char *args) {
    const char *cli = getenv("SK_CLI");
    assert_non_null(cli);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>/tmp/sk_cli_stderr_%d", cli, args, (int)getpid());
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += k;
        if (cap - n < 4096) buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    int st = pclose(p);
    run_result r = {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), buf};
    return r;
}

static char *last_stderr(void) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/sk_cli_stderr_%d", (int)getpid());
    char *s = sk_test_read_file(path, NULL);
    remove(path);
    return s ? s : strdup("");
}

static void expect_fail(const char *args, const char *needle) {
    run_result r = run(args);
    char *err = last_stderr();
    if (r.status != 1 || !strstr(err, needle))
        fprintf(stderr, "args: %s\nstatus %d\nstderr: %s\n", args, r.status, err);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(err, needle));
    free(err);
    free(r.out);
}

static void test_errors(void **st) {
    (void)st;
    expect_fail("", "usage");
    expect_fail("frobnicate", "unknown command");
    expect_fail("info /nonexistent/file.glb", "/nonexistent/file.glb");
    expect_fail("sample @mannequin", "--time");
    expect_fail("sample @mannequin --time abc", "not a finite number");
    expect_fail("sample @mannequin --time nan", "not a finite number");
    expect_fail("sample @mannequin --time 1 --clip nosuch", "no such clip");
    expect_fail("sample @mannequin --time 1 --loop sideways", "repeat or clamp");
    expect_fail("sample @mannequin --time 1 --vertex 1:2", "--vertex: '1:2' is not 3 numbers separated by ':'");
    expect_fail("sample @mannequin --time 1 --vertex 99999:0:0", "does not exist");
    expect_fail("sample @mannequin --time 1 --bogus", "unknown option");
    /* a file that is not glTF at all */
    FILE *f = fopen("/tmp/sk_cli_garbage.glb", "wb");
    fputs("this is not a glb file", f);
    fclose(f);
    run_result r = run("info /tmp/sk_cli_garbage.glb");
    char *err = last_stderr();
    assert_int_equal(r.status, 1);
    assert_true(strlen(err) > 0);
    free(err);
    free(r.out);
    remove("/tmp/sk_cli_garbage.glb");
}

static void test_mannequin_sample(void **st) {
    (void)st;
    run_result r = run("sample @mannequin --clip walk --time 0.3 --json");
    free(last_stderr());
    assert_int_equal(r.status, 0);
    cJSON *o = cJSON_Parse(r.out);
    assert_non_null(o);
    const cJSON *clip = cJSON_GetObjectItem(o, "clip");
    assert_string_equal(cJSON_GetObjectItem(clip, "name")->valuestring, "walk");
    const cJSON *nodes = cJSON_GetObjectItem(o, "nodes");
    assert_true(cJSON_GetArraySize(nodes) >= 20);
    const cJSON *n0 = cJSON_GetArrayItem(nodes, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(n0, "world")), 16);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(n0, "local"), "r")), 4);
    cJSON_Delete(o);
    free(r.out);
    r = run("sample @mannequin --clip none --time 0");
    free(last_stderr());
    assert_int_equal(r.status, 0);
    o = cJSON_Parse(r.out);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "clip")));
    cJSON_Delete(o);
    free(r.out);
    r = run("info @mannequin");
    free(last_stderr());
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "clips: 7"));
    free(r.out);
}

/* CLI output for CesiumMan at the oracle's "quarter" sample, including a skinned vertex. */
static void test_cli_vs_oracle(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char path[2048];
    snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/oracle.three.json", shared);
    char *text = sk_test_read_file(path, NULL);
    assert_non_null(text);
    cJSON *o = cJSON_Parse(text);
    free(text);
    const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "clips"), 0), "samples"), 1);
    assert_string_equal(cJSON_GetObjectItem(smp, "label")->valuestring, "quarter");
    const cJSON *set = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "vertexSets"), 0);
    int vnode = cJSON_GetObjectItem(set, "node")->valueint;
    int vidx = cJSON_GetArrayItem(cJSON_GetObjectItem(set, "indices"), 3)->valueint;
    char args[4096];
    snprintf(args, sizeof args, "sample '%s/assets/gltf/CesiumMan/CesiumMan.glb' --clip 0 --time %.17g --vertex %d:0:%d --json",
             shared, cJSON_GetObjectItem(smp, "t")->valuedouble, vnode, vidx);
    run_result r = run(args);
    free(last_stderr());
    assert_int_equal(r.status, 0);
    cJSON *out = cJSON_Parse(r.out);
    assert_non_null(out);
    const cJSON *on, *xn;
    int matched = 0;
    cJSON_ArrayForEach(xn, cJSON_GetObjectItem(smp, "nodes")) {
        int idx = cJSON_GetObjectItem(xn, "node")->valueint;
        cJSON_ArrayForEach(on, cJSON_GetObjectItem(out, "nodes")) {
            if (cJSON_GetObjectItem(on, "index")->valueint != idx) continue;
            const cJSON *a = cJSON_GetObjectItem(on, "world"), *b = cJSON_GetObjectItem(xn, "world");
            for (int i = 0; i < 16; i++)
                assert_true(fabs(cJSON_GetArrayItem(a, i)->valuedouble - cJSON_GetArrayItem(b, i)->valuedouble) < 1e-4);
            matched++;
        }
    }
    assert_int_equal(matched, cJSON_GetArraySize(cJSON_GetObjectItem(smp, "nodes")));
    const cJSON *pos = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(out, "skinned"), 0), "position");
    const cJSON *ref = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(smp, "vertices"), 0), "world"), 3);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(cJSON_GetArrayItem(pos, i)->valuedouble - cJSON_GetArrayItem(ref, i)->valuedouble) < 1e-4);
    printf("CLI sample matches the three.js oracle on %d nodes and a skinned vertex\n", matched);
    cJSON_Delete(out);
    cJSON_Delete(o);
    free(r.out);
}

/* skelanim render writes real PNG and GIF files, and refuses what it cannot write. */
static void test_render_files(void **st) {
    (void)st;
    /* Under AddressSanitizer the tool would report Mesa's own leaks (see tests/CMakeLists.txt). */
    const char *old = getenv("ASAN_OPTIONS");
    char *saved = old ? strdup(old) : NULL;
    setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1", 1);
    expect_fail("render @mannequin --out /tmp/sk_cli_render.bmp", ".png or .gif");
    expect_fail("render @mannequin --out /tmp/sk_cli_render.png --size 3x3", "--size: '3x3' is outside [16, 4096]");
    /* --frames N with a .png: a numbered PNG sequence */
    run_result seq = run("render @mannequin --clip walk --frames 2 --size 32x32 --out /tmp/sk_cli_seq.png");
    free(last_stderr());
    assert_int_equal(seq.status, 0);
    free(seq.out);
    for (int f = 0; f < 2; f++) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/sk_cli_seq-%03d.png", f);
        size_t len = 0;
        char *img = sk_test_read_file(path, &len);
        assert_non_null(img);
        assert_true(len > 8 && memcmp(img, "\x89PNG\r\n\x1a\n", 8) == 0);
        free(img);
        remove(path);
    }
    run_result r = run("render @mannequin --clip walk --time 0.25 --size 64x64 --out /tmp/sk_cli_render.png");
    free(last_stderr());
    assert_int_equal(r.status, 0);
    free(r.out);
    size_t n = 0;
    char *png = sk_test_read_file("/tmp/sk_cli_render.png", &n);
    assert_non_null(png);
    assert_true(n > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
    free(png);
    r = run("render @mannequin --clip run --frames 3 --fps 10 --size 64x64 --out /tmp/sk_cli_render.gif");
    free(last_stderr());
    assert_int_equal(r.status, 0);
    free(r.out);
    char *gif = sk_test_read_file("/tmp/sk_cli_render.gif", &n);
    assert_non_null(gif);
    assert_true(n > 6 && memcmp(gif, "GIF89a", 6) == 0);
    free(gif);
    remove("/tmp/sk_cli_render.png");
    remove("/tmp/sk_cli_render.gif");
    if (saved) setenv("ASAN_OPTIONS", saved, 1);
    else unsetenv("ASAN_OPTIONS");
    free(saved);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mannequin_sample),
        cmocka_unit_test(test_cli_vs_oracle),
        cmocka_unit_test(test_render_files),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
