/* Hostile input (issue #14): one regression test per finding, each on a
 * small hand-made input kept in tests/data/regress/ (named after the finding)
 * or built here. docs/robustness.md lists the findings, the fixes and these
 * tests.
 *  f1: a huge but finite speed or time step must not overflow the player's
 *      cycle counter or hang root motion (loop counts in double, clamped).
 *  f2: accessors without a bufferView are not materialised: a 257-byte file
 *      whose accessor claims 89 million elements loads with a small peak.
 *  f3: a buffer URI that is a symbolic link out of the model's folder is
 *      refused (and its bytes never reach the message); a FIFO does not block.
 *  f4: the .glb writer refuses what the reader would refuse; the reader
 *      refuses zero-filled key times and warns about singular inverse binds.
 *  f5: values that overflow to infinity in world space are refused at load;
 *      IK never returns NaN for a finite target.
 *  f6: the CLI's one numeric parser: finite, in range, subnormals accepted,
 *      unsigned values refuse a sign (cli_hostile.sh runs the tool). */
#include "support.h"
#include "parse_number.h" /* the CLI's one numeric parser (cli/) */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void regress_path(char *out, size_t cap, const char *name) {
    char dir[1024];
    sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/regress");
    sk_test_path(out, cap, dir, name);
}

static char *regress_read(const char *name, size_t *size) {
    char p[1200];
    regress_path(p, sizeof p, name);
    char *s = sk_test_read_file(p, size);
    if (!s) fail_msg("cannot read %s", p);
    return s;
}

/* ---- f1: huge speeds and steps ------------------------------------------- */

static bool count_event(void *user, const sk_event *ev) {
    (void)ev;
    (*(uint64_t *)user)++;
    return true;
}

static void f1_player_huge_step(void **state) {
    (void)state;
    sk_player_desc d = {0};
    d.duration = 1.0;
    sk_player p;
    sk_player_init(&p, &d);
    sk_player_step(&p, 1e30, NULL, 0, NULL, NULL); /* main: (int64_t)1e30, undefined */
    assert_true(p.cycle > 0 && (double)p.cycle <= SK_PLAYER_MAX_STEP_CYCLES + 1.0);
    assert_true(p.pos >= 0.0 && p.pos < p.period);
    for (int i = 0; i < 100; i++) sk_player_step(&p, 1e300, NULL, 0, NULL, NULL);
    assert_true(p.cycle > 0 && (double)p.cycle <= SK_PLAYER_MAX_CYCLE);
    sk_player_step(&p, -1e308, NULL, 0, NULL, NULL);
    assert_true(p.pos >= 0.0 && p.pos < p.period);
    /* markers over a huge step: bounded, not 1e30 callbacks */
    sk_marker m[2] = {{"a", 0.25}, {"b", 0.75}};
    uint64_t n = 0;
    sk_player_init(&p, &d);
    uint64_t got = sk_player_step(&p, 1e30, m, 2, count_event, &n);
    assert_int_equal(got, n);
    assert_true(n >= 2 && n <= 2u * (SK_PLAYER_MAX_EVENT_CYCLES + 1u));
    /* a saturated counter stays defined */
    p.cycle = INT64_MAX;
    sk_player_step(&p, 5.0, NULL, 0, NULL, NULL);
    assert_true((double)p.cycle <= SK_PLAYER_MAX_CYCLE);
}

static void f1_root_motion_huge_step(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    int32_t walk = sk_asset_find_clip(a, "walk");
    assert_true(walk >= 0);
    sk_root_motion *rm = NULL;
    assert_int_equal(sk_root_motion_create(a->clips[walk], a->skeleton, 0, NULL, &rm, NULL), SK_OK);
    sk_player_desc d = {0};
    d.duration = sk_clip_duration(a->clips[walk]);
    sk_player p0, p1;
    sk_player_init(&p0, &d);
    const double steps[] = {1e30, -1e30, 1e300, 3e9};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        p1 = p0;
        sk_player_step(&p1, steps[i], NULL, 0, NULL, NULL);
        sk_root_delta dl = sk_root_motion_delta(rm, &p0, &p1); /* main: loop_pow(-INT64_MIN) */
        assert_true(isfinite(dl.translation.x) && isfinite(dl.translation.z) && isfinite(dl.yaw));
    }
    /* cycle counts set by hand to the extremes */
    p0.cycle = INT64_MIN;
    p1.cycle = INT64_MAX;
    sk_root_delta dl = sk_root_motion_delta(rm, &p0, &p1);
    assert_true(isfinite(dl.translation.x) && isfinite(dl.translation.z) && isfinite(dl.yaw));
    sk_root_motion_destroy(rm);
    sk_asset_destroy(a);
}

static void f1_graph_speed(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    size_t len;
    char *js = regress_read("f1_huge_speed.json", &len);
    sk_graph *g = NULL;
    sk_error err = {0};
    /* speed 1e30 is refused with its JSON path */
    assert_int_equal(sk_graph_load_json(js, len, a->skeleton, a->clips, a->clip_count, NULL, &g, &err),
                     SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "/machine/states/0/speed"));
    free(js);
    /* the fastest speed allowed, with huge steps: finite root motion, no hang */
    js = regress_read("f1_fast_walk.json", &len);
    assert_int_equal(sk_graph_load_json(js, len, a->skeleton, a->clips, a->clip_count, NULL, &g, &err), SK_OK);
    free(js);
    sk_graph_instance *in = NULL;
    assert_int_equal(sk_graph_instance_create(g, NULL, &in, &err), SK_OK);
    const double dts[] = {1.0 / 60.0, 1e30, 1e300, 1e30, 0.5};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        sk_graph_update(in, dts[i]);
        sk_root_delta dl = sk_graph_root_motion(in);
        assert_true(isfinite(dl.translation.x) && isfinite(dl.translation.z) && isfinite(dl.yaw));
    }
    sk_transform *l = calloc(a->skeleton->joint_count, sizeof *l);
    assert_int_equal(sk_graph_evaluate(in, SK_POSE_OF(a->skeleton, l, NULL), &err), SK_OK);
    for (uint32_t j = 0; j < a->skeleton->joint_count; j++)
        assert_true(isfinite(l[j].t.x) && isfinite(l[j].r.w) && isfinite(l[j].s.y));
    free(l);
    sk_graph_instance_destroy(in);
    sk_graph_destroy(g);
    sk_asset_destroy(a);
}

/* ---- f2: accessors without a bufferView --------------------------------- */

static void f2_zero_accessor_peak(void **state) {
    (void)state;
    char p[1200];
    regress_path(p, sizeof p, "f2_zero_accessor.gltf");
    sk_test_peak t = {0};
    sk_gltf_options o = {0};
    o.allocator.alloc = sk_test_peak_alloc;
    o.allocator.free = sk_test_peak_free;
    o.allocator.user = &t;
    sk_asset *a = NULL;
    sk_error err = {0};
    /* main: 89 million zero vec3 per primitive, three primitives: 3.1 GB */
    sk_result r = sk_gltf_load_file(p, &o, &a, &err);
    printf("f2: %s; peak %zu bytes\n", err.message, t.peak);
    assert_int_equal(r, SK_ERR_LIMIT);
    assert_non_null(strstr(err.message, "no bufferView"));
    assert_non_null(strstr(err.message, "max_decoded_bytes"));
    assert_true(t.peak < ((size_t)1 << 20));
    assert_int_equal(t.live, 0);
    assert_int_equal(t.bad, 0);

    /* 1 million zero vertices, allowed by the option: loaded once, shared by the three primitives */
    char *js = regress_read("f2_zero_accessor.gltf", NULL);
    char *at = strstr(js, "89000000");
    assert_non_null(at);
    memcpy(at, " 1000000", 8); /* JSON has no leading zeros: the reader refuses "01000000" */
    t = (sk_test_peak){0};
    o.max_decoded_bytes = (uint64_t)1 << 30;
    assert_int_equal(sk_gltf_load_memory(js, strlen(js), NULL, &o, &a, &err), SK_OK);
    const sk_mesh *m = &a->meshes[0];
    assert_int_equal(m->primitive_count, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(m->primitives[i].vertex_count, 1000000);
        assert_ptr_equal(m->primitives[i].positions, m->primitives[0].positions);
    }
    assert_true(m->primitives[0].positions[3 * 999999 + 2] == 0.0f);
    printf("f2: 1e6 zero vertices in 3 primitives, peak %zu bytes\n", t.peak);
    assert_true(t.peak < 12000000u + (4u << 20)); /* one 12 MB array, not three */
    sk_asset_destroy(a);
    assert_int_equal(t.live, 0);
    /* the default limit (64 MiB + 64 x 263 bytes) takes 12 MB; a limit of 1000 bytes does not */
    o.max_decoded_bytes = 0;
    assert_int_equal(sk_gltf_load_memory(js, strlen(js), NULL, &o, &a, &err), SK_OK);
    sk_asset_destroy(a);
    o.max_decoded_bytes = 1000;
    assert_int_equal(sk_gltf_load_memory(js, strlen(js), NULL, &o, &a, &err), SK_ERR_LIMIT);
    free(js);
}

/* ---- f3: paths ------------------------------------------------------------ */

#define F3_SECRET "SECRET-OUTSIDE-BYTES-0123456789"

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void copy_regress(const char *name, const char *to) {
    char *t = regress_read(name, NULL);
    write_text(to, t);
    free(t);
}

/* A read callback that serves every path from the default reader: with user
 * callbacks the callback decides. */
static sk_result f3_read(void *user, const char *path, uint64_t max, const sk_allocator *a, void **d, size_t *n,
                         sk_error *err) {
    (*(int *)user)++;
    return sk_file_read_default(NULL, path, max, a, d, n, err);
}

static void f3_symlink_out_of_folder(void **state) {
    (void)state;
    char root[] = "/tmp/sk_hostile_f3_XXXXXX";
    assert_non_null(mkdtemp(root));
    char model_dir[256], secret[256], gltf[300], link[300], fifo_gltf[300], fifo[300];
    snprintf(model_dir, sizeof model_dir, "%s/model", root);
    snprintf(secret, sizeof secret, "%s/secret.bin", root);
    snprintf(gltf, sizeof gltf, "%s/m.gltf", model_dir);
    snprintf(link, sizeof link, "%s/link.bin", model_dir);
    snprintf(fifo_gltf, sizeof fifo_gltf, "%s/fifo.gltf", model_dir);
    snprintf(fifo, sizeof fifo, "%s/pipe.bin", model_dir);
    assert_int_equal(mkdir(model_dir, 0700), 0);
    write_text(secret, F3_SECRET F3_SECRET);
    copy_regress("f3_symlink_buffer.gltf", gltf);
    assert_int_equal(symlink("../secret.bin", link), 0);

    /* main: the link is followed and the outside file read */
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_file(gltf, NULL, &a, &err), SK_ERR_INVALID_DATA);
    printf("f3: %s\n", err.message);
    assert_non_null(strstr(err.message, "/buffers/0/uri: \"link.bin\" resolves"));
    assert_non_null(strstr(err.message, "outside the model's folder"));
    assert_null(strstr(err.message, "SECRET"));
    assert_null(strstr(err.message, "secret.bin"));
    /* an allowed root lets it in */
    const char *roots[] = {NULL, root};
    sk_gltf_options o = {0};
    o.allowed_roots = roots;
    o.allowed_root_count = 2;
    assert_int_equal(sk_gltf_load_file(gltf, &o, &a, &err), SK_OK);
    sk_asset_destroy(a);
    /* with a read callback the callback decides */
    int calls = 0;
    sk_gltf_options oc = {0};
    oc.file_io.read = f3_read;
    oc.file_io.user = &calls;
    assert_int_equal(sk_gltf_load_file(gltf, &oc, &a, &err), SK_OK);
    assert_int_equal(calls, 2); /* the .gltf and the buffer */
    sk_asset_destroy(a);
    /* a link that stays inside the folder is fine */
    char inside[300], link2[300];
    snprintf(inside, sizeof inside, "%s/data.bin", model_dir);
    write_text(inside, F3_SECRET);
    assert_int_equal(unlink(link), 0);
    assert_int_equal(symlink("data.bin", link), 0);
    assert_int_equal(sk_gltf_load_file(gltf, NULL, &a, &err), SK_OK);
    sk_asset_destroy(a);
    /* a link to a directory that leads out again */
    snprintf(link2, sizeof link2, "%s/up", model_dir);
    assert_int_equal(symlink("..", link2), 0);
    assert_int_equal(unlink(link), 0);
    assert_int_equal(symlink("up/secret.bin", link), 0);
    assert_int_equal(sk_gltf_load_file(gltf, NULL, &a, &err), SK_ERR_INVALID_DATA);
    assert_null(strstr(err.message, "SECRET"));

    /* a FIFO as the buffer: refused at once, never waited on */
    copy_regress("f3_fifo_buffer.gltf", fifo_gltf);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(20); /* a blocking open would end the test here */
    assert_int_equal(sk_gltf_load_file(fifo_gltf, NULL, &a, &err), SK_ERR_IO);
    alarm(0);
    assert_non_null(strstr(err.message, "is a FIFO"));

    unlink(fifo);
    unlink(fifo_gltf);
    unlink(link);
    unlink(link2);
    unlink(inside);
    unlink(gltf);
    rmdir(model_dir);
    unlink(secret);
    rmdir(root);
}

/* ---- f4: the writer writes only what the reader takes --------------------- */

typedef struct warn_log { int count; char last[512]; } warn_log;
static void f4_warn(void *user, const char *message) {
    warn_log *l = user;
    l->count++;
    snprintf(l->last, sizeof l->last, "%s", message);
}

/* ---- found by fuzzing (fuzz/regress/roundtrip/oom_unread_attribute_zero_positions) ----
 * The decoded-data budget of finding 2 did not cover what the reader
 * allocated without decoding an accessor: a primitive without POSITION got
 * zero positions for the count of any attribute (one we do not even read),
 * and the joint and weight arrays were allocated before their accessors were
 * charged. A 250-byte file took 2.1 GB (three primitives of 89 million
 * vertices, libFuzzer's out-of-memory). Both now count against
 * max_decoded_bytes before anything is allocated. */
static void fuzz_zero_positions_and_joint_arrays_budget(void **state) {
    (void)state;
    char p[1200];
    regress_path(p, sizeof p, "fuzz_unread_attribute_huge_count.gltf");
    sk_test_peak t = {0};
    sk_gltf_options o = {0};
    o.allocator.alloc = sk_test_peak_alloc;
    o.allocator.free = sk_test_peak_free;
    o.allocator.user = &t;
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_file(p, &o, &a, &err);
    printf("fuzz: %s; peak %zu bytes\n", err.message, t.peak);
    assert_int_equal(r, SK_ERR_LIMIT);
    assert_non_null(strstr(err.message, "/meshes/0/primitives/0/attributes: zero positions for a primitive without POSITION"));
    assert_non_null(strstr(err.message, "max_decoded_bytes"));
    assert_true(t.peak < ((size_t)1 << 20));
    assert_int_equal(t.live, 0);

    /* Joints and weights of 1 million vertices: 12 MB of positions fit a
     * 20 MB limit, the 24 MB of skinning arrays do not, and are refused
     * before they are allocated. */
    regress_path(p, sizeof p, "fuzz_joint_arrays.gltf");
    t = (sk_test_peak){0};
    o.max_decoded_bytes = 20u << 20;
    r = sk_gltf_load_file(p, &o, &a, &err);
    printf("fuzz: %s; peak %zu bytes\n", err.message, t.peak);
    assert_int_equal(r, SK_ERR_LIMIT);
    assert_non_null(strstr(err.message, "joint and weight arrays"));
    assert_true(t.peak < (size_t)(20u << 20));
    assert_int_equal(t.live, 0);
    /* 100 MiB loads it (12 MB positions, 24 MB arrays, 32 MB decoded joints and weights) */
    o.max_decoded_bytes = 100u << 20;
    assert_int_equal(sk_gltf_load_file(p, &o, &a, &err), SK_OK);
    assert_int_equal(a->meshes[0].primitives[0].influence_count, 4);
    assert_int_equal(a->meshes[0].primitives[0].vertex_count, 1000000);
    sk_asset_destroy(a);
    assert_int_equal(t.live, 0);
    assert_int_equal(t.bad, 0);
}

/* ---- item 5: what the reader skips or repairs is reported ------------------ */

typedef struct warn_all { int count; char text[2048]; } warn_all;
static void warn_collect(void *user, const char *message) {
    warn_all *l = user;
    l->count++;
    size_t n = strlen(l->text);
    snprintf(l->text + n, sizeof l->text - n, "%s\n", message);
}

static void item5_skipped_and_repaired_warn(void **state) {
    (void)state;
    /* An unused extension, a texture whose image is only in an extension, a
     * node rotation of length 2: each loads (the validator accepts the first
     * two and reports the third) and each is reported once. */
    const char *doc =
        "{\"asset\": {\"version\": \"2.0\"},"
        " \"extensionsUsed\": [\"KHR_mesh_quantization\", \"KHR_materials_emissive_strength\", \"EXT_texture_webp\"],"
        " \"images\": [{\"uri\": \"a.webp\"}],"
        " \"textures\": [{\"extensions\": {\"EXT_texture_webp\": {\"source\": 0}}}],"
        " \"nodes\": [{\"rotation\": [0, 0, 0, 2]}, {\"rotation\": [0, 0, 0.6, 0.8]}],"
        " \"scenes\": [{\"nodes\": [0, 1]}]}";
    warn_all log = {0};
    sk_gltf_options o = {0};
    o.warning = warn_collect;
    o.warning_user = &log;
    o.skip_image_data = true;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_memory(doc, strlen(doc), NULL, &o, &a, &err), SK_OK);
    printf("%s", log.text);
    assert_int_equal(log.count, 4);
    assert_non_null(strstr(log.text, "/extensionsUsed/1: KHR_materials_emissive_strength is not read"));
    assert_non_null(strstr(log.text, "/extensionsUsed/2: EXT_texture_webp is not read"));
    assert_non_null(strstr(log.text, "/textures/0: its image is only in extension EXT_texture_webp"));
    assert_non_null(strstr(log.text, "/nodes/0/rotation: not a unit quaternion (length 2): normalised"));
    assert_null(strstr(log.text, "/nodes/1"));
    assert_int_equal(a->textures[0].image, -1);
    /* normalised as before */
    uint32_t j = a->node_to_joint[0];
    assert_true(fabsf(a->skeleton->rest[j].r.w - 1.0f) < 1e-6f);
    sk_asset_destroy(a);
    /* without a callback: the same asset, nothing reported */
    o.warning = NULL;
    log.count = 0;
    assert_int_equal(sk_gltf_load_memory(doc, strlen(doc), NULL, &o, &a, &err), SK_OK);
    assert_int_equal(log.count, 0);
    sk_asset_destroy(a);
}

static void f4_zero_filled_not_written(void **state) {
    (void)state;
    const struct { const char *file, *warning, *write_error; } cases[] = {
        {"f4_zero_key_times.gltf", "/animations/0/samplers/0/input: accessor 0 has no bufferView: its 2 key times are all 0",
         "key 1 at 0 does not come after the key before it: the glTF reader would refuse the file"},
        {"f4_zero_inverse_bind.gltf", "/skins/0/inverseBindMatrices: accessor 3 has no bufferView: its 1 inverse bind "
         "matrices are all zero", "inverse bind matrix 0 is not affine (bottom row 0 0 0 0): the glTF reader would refuse"},
    };
    for (size_t i = 0; i < 2; i++) {
        char p[1200];
        regress_path(p, sizeof p, cases[i].file);
        warn_log log = {0};
        sk_gltf_options o = {0};
        o.warning = f4_warn;
        o.warning_user = &log;
        sk_asset *a = NULL;
        sk_error err = {0};
        /* the Khronos validator accepts these (it checks stored data): they load, with a warning */
        assert_int_equal(sk_gltf_load_file(p, &o, &a, &err), SK_OK);
        printf("f4 warning: %s\n", log.last);
        assert_int_equal(log.count, 1);
        assert_non_null(strstr(log.last, cases[i].warning));
        /* without a callback: no warning, same asset */
        sk_asset *b = NULL;
        assert_int_equal(sk_gltf_load_file(p, NULL, &b, &err), SK_OK);
        sk_asset_destroy(b);
        /* main: written, and the written file does not load */
        void *glb = NULL;
        size_t size = 0;
        sk_result r = sk_glb_write_memory(a, &glb, &size, &err);
        if (r == SK_OK) {
            sk_asset *c = NULL;
            sk_error e2 = {0};
            sk_result r2 = sk_gltf_load_memory(glb, size, NULL, NULL, &c, &e2);
            sk_free(NULL, glb, size);
            sk_asset_destroy(c);
            fail_msg("written (%zu bytes); loading it back: %s", size, r2 == SK_OK ? "ok" : e2.message);
        }
        printf("f4 write: %s\n", err.message);
        assert_int_equal(r, SK_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(err.message, cases[i].write_error));
        sk_asset_destroy(a);
    }
    /* a stored, affine but singular inverse bind (x collapsed): loads with a warning, and writes */
    char p[1200];
    regress_path(p, sizeof p, "f4_singular_inverse_bind.gltf");
    warn_log log = {0};
    sk_gltf_options o = {0};
    o.warning = f4_warn;
    o.warning_user = &log;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_file(p, &o, &a, &err), SK_OK);
    printf("f4 warning: %s\n", log.last);
    assert_int_equal(log.count, 1);
    assert_non_null(strstr(log.last, "/skins/0/inverseBindMatrices: matrix 0 is singular"));
    void *glb = NULL;
    size_t size = 0;
    assert_int_equal(sk_glb_write_memory(a, &glb, &size, &err), SK_OK);
    sk_asset *c = NULL;
    assert_int_equal(sk_gltf_load_memory(glb, size, NULL, NULL, &c, &err), SK_OK);
    sk_free(NULL, glb, size);
    sk_asset_destroy(c);
    sk_asset_destroy(a);
}

/* ---- item 5: the writer says what it leaves out ------------------------------ */

/* The three round-trip findings (a primitive whose positions are not in the
 * file, a clip animating through KHR_animation_pointer only, an image kept by
 * its uri): each write warns through sk_glb_write_options.warning, once, naming
 * the item; without a callback the bytes written are the same. */
static void item5_writer_warns(void **state) {
    (void)state;
    static const struct { const char *file, *buffer, *warning; } cases[] = {
        {"harness_mesh_without_vertices", NULL, "mesh 0: no primitive with vertices, left out"},
        {"harness_clip_without_tracks", NULL, "no track glTF can carry, left out"},
        {"harness_image_kept_by_uri", "AnimatedCube.bin", "kept by its uri"},
    };
    char dir[] = "/tmp/sk_writer_warnXXXXXX";
    assert_non_null(mkdtemp(dir));
    int checked = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* The harness input is the glTF JSON, then (after SK_FUZZ_BIN_SEP) its external buffer. */
        char p[1200], gp[1200], bp[1200], rdir[1024];
        sk_test_path(rdir, sizeof rdir, sk_test_source_dir(), "fuzz/regress/roundtrip");
        sk_test_path(p, sizeof p, rdir, cases[i].file);
        FILE *f = fopen(p, "rb");
        assert_non_null(f);
        static char data[1 << 16];
        size_t n = fread(data, 1, sizeof data - 1, f);
        fclose(f);
        data[n] = 0;
        const char *sep = "\n#skelanim-fuzz-bin#\n";
        char *cut = strstr(data, sep);
        size_t json_n = cut ? (size_t)(cut - data) : n;
        snprintf(gp, sizeof gp, "%s/case%zu.gltf", dir, i);
        f = fopen(gp, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, json_n, f), json_n);
        fclose(f);
        bp[0] = 0;
        if (cases[i].buffer) {
            assert_non_null(cut);
            snprintf(bp, sizeof bp, "%s/%s", dir, cases[i].buffer);
            f = fopen(bp, "wb");
            assert_non_null(f);
            size_t bn = n - json_n - strlen(sep);
            assert_int_equal(fwrite(cut + strlen(sep), 1, bn, f), bn);
            fclose(f);
            /* its two images, as bytes of no known type */
            static const char *const images[] = {"AnimatedCube_BaseColor.png", "AnimatedCube_MetallicRoughness.png"};
            for (int k = 0; k < 2; k++) {
                char ip[1200];
                snprintf(ip, sizeof ip, "%s/%s", dir, images[k]);
                f = fopen(ip, "wb");
                assert_non_null(f);
                fputs("not an image", f);
                fclose(f);
            }
        }
        sk_asset *a = NULL;
        sk_error err = {0};
        if (sk_gltf_load_file(gp, NULL, &a, &err) != SK_OK) fail_msg("%s: %s", cases[i].file, err.message);
        warn_log log = {0};
        sk_glb_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.warning = f4_warn;
        wo.warning_user = &log;
        void *g1 = NULL, *g2 = NULL;
        size_t n1 = 0, n2 = 0;
        assert_int_equal(sk_glb_write_memory_ex(a, &wo, &g1, &n1, &err), SK_OK);
        printf("writer warning (%s, %d): %s\n", cases[i].file, log.count, log.last);
        assert_true(log.count >= 1);
        assert_non_null(strstr(log.last, cases[i].warning));
        assert_int_equal(sk_glb_write_memory(a, &g2, &n2, &err), SK_OK);
        assert_int_equal(n1, n2);
        assert_memory_equal(g1, g2, n1);
        sk_asset *c = NULL; /* what was written loads */
        if (sk_gltf_load_memory(g1, n1, dir, NULL, &c, &err) != SK_OK) fail_msg("%s: %s", cases[i].file, err.message);
        sk_asset_destroy(c);
        remove(gp);
        if (bp[0]) {
            remove(bp);
            char ip[1200];
            snprintf(ip, sizeof ip, "%s/AnimatedCube_BaseColor.png", dir), remove(ip);
            snprintf(ip, sizeof ip, "%s/AnimatedCube_MetallicRoughness.png", dir), remove(ip);
        }
        sk_free(NULL, g1, n1), sk_free(NULL, g2, n2);
        sk_asset_destroy(a);
        checked++;
    }
    assert_int_equal(checked, 3);
    rmdir(dir);
    /* An asset that loses nothing writes without a warning (the mannequin). */
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    warn_log log = {0};
    sk_glb_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.warning = f4_warn;
    wo.warning_user = &log;
    void *g = NULL;
    size_t n = 0;
    assert_int_equal(sk_glb_write_memory_ex(m, &wo, &g, &n, NULL), SK_OK);
    assert_int_equal(log.count, 0);
    sk_free(NULL, g, n);
    sk_asset_destroy(m);
}

/* ---- f5: finite but huge values ----------------------------------------- */

static void f5_world_overflow_refused(void **state) {
    (void)state;
    const char *files[] = {"f5_huge_translation.gltf", "f5_huge_key.gltf"};
    for (size_t i = 0; i < 2; i++) {
        char p[1200];
        regress_path(p, sizeof p, files[i]);
        sk_asset *a = NULL;
        sk_error err = {0};
        /* main: loads, and its world matrices are infinite */
        assert_int_equal(sk_gltf_load_file(p, NULL, &a, &err), SK_ERR_INVALID_DATA);
        assert_null(a);
        printf("%s\n", err.message);
        assert_non_null(strstr(err.message, "SK_GLTF_MAX_WORLD"));
        assert_non_null(strstr(err.message, i == 0 ? "/nodes/0:" : "/nodes/1:"));
    }
    /* just inside the limit loads, and its world matrices are finite */
    char js[512];
    snprintf(js, sizeof js,
             "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"translation\":[4e14,0,0],\"children\":[1]},"
             "{\"translation\":[4e14,0,0]}]}");
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_memory(js, strlen(js), NULL, NULL, &a, &err), SK_OK);
    sk_mat4 model[2];
    assert_int_equal(sk_local_to_model(a->skeleton, SK_POSE_OF(a->skeleton, (sk_transform *)a->skeleton->rest, NULL), NULL,
                                       model, 2, &err), SK_OK);
    assert_true(isfinite(model[1].m[12]) && model[1].m[12] > 7e14f);
    sk_asset_destroy(a);
}

static void f5_ik_huge_target(void **state) {
    (void)state;
    sk_asset *a = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &a, NULL), SK_OK);
    const sk_skeleton *sk = a->skeleton;
    uint32_t joints[8], n = 0;
    assert_int_equal(sk_ik_chain_find_named(sk, "thigh_l", "toe_l", joints, 8, &n, NULL), SK_OK);
    sk_ik_chain chain = {sk, joints, n, NULL};
    sk_transform *l = malloc(sk->joint_count * sizeof *l);
    const sk_ik_solver solvers[] = {SK_IK_FABRIK, SK_IK_CCD, SK_IK_JACOBIAN_TRANSPOSE, SK_IK_DLS, SK_IK_AIM};
    const float xs[] = {3e38f, -3e38f, 1e20f, 1e15f, 1e6f};
    for (size_t si = 0; si < sizeof solvers / sizeof solvers[0]; si++)
        for (size_t xi = 0; xi < sizeof xs / sizeof xs[0]; xi++) {
            memcpy(l, sk->rest, sk->joint_count * sizeof *l);
            sk_ik_target t = {0};
            t.position = sk_vec3_make(xs[xi], 0.5f, xs[xi]);
            sk_ik_options o = {0};
            o.solver = solvers[si];
            sk_ik_result res;
            sk_error err = {0};
            sk_result r = sk_ik_solve(&chain, &t, &o, SK_POSE_OF(sk, l, NULL), NULL, 0, &res, &err);
            /* main: SK_OK with a NaN error (Inf - Inf) and "stop: tolerance" */
            if (r == SK_OK) {
                assert_true(isfinite(res.error) && isfinite(res.residual));
                for (uint32_t j = 0; j < n; j++) assert_true(isfinite(l[joints[j]].r.w));
            } else {
                assert_int_equal(r, SK_ERR_INVALID_ARGUMENT);
                assert_non_null(strstr(err.message, "SK_IK_MAX_COORD"));
                assert_true(fabsf(xs[xi]) > SK_IK_MAX_COORD);
            }
        }
    /* several end effectors */
    int32_t foot = sk_skeleton_find(sk, "foot_l");
    sk_ik_effector e = {0};
    e.joint = (uint32_t)foot;
    e.target = sk_vec3_make(3e38f, 0.0f, 0.0f);
    size_t need = sk_ik_multi_scratch_size(sk);
    void *scratch = malloc(need);
    memcpy(l, sk->rest, sk->joint_count * sizeof *l);
    sk_ik_result res;
    sk_error err = {0};
    sk_result r = sk_ik_solve_multi(sk, (uint32_t)sk_skeleton_find(sk, "hips"), &e, 1, NULL, SK_POSE_OF(sk, l, NULL),
                                    scratch, need, &res, &err);
    assert_true(r != SK_OK || isfinite(res.error));
    free(scratch);
    free(l);
    sk_asset_destroy(a);
}

/* ---- f6: the CLI's numeric parser ------------------------------------------ */

static bool num(const char *s, cli_num_kind k, double lo, double hi, double *v, char *why) {
    return cli_number(s, strlen(s), k, lo, hi, v, why, 160);
}

static void f6_number_parser(void **state) {
    (void)state;
    double v = -1.0;
    char why[160];
    /* subnormals are finite numbers (main: "not a finite number") */
    assert_true(num("1e-320", CLI_NUM_REAL, -1e9, 1e9, &v, why));
    assert_true(v > 0.0 && v < 1e-300);
    assert_true(num("-4.9e-324", CLI_NUM_REAL, -1e9, 1e9, &v, why));
    assert_true(num("0x1p-1074", CLI_NUM_REAL, -1e9, 1e9, &v, why));
    /* not finite, not a number, junk */
    const char *bad[] = {"nan", "inf", "-inf", "1e400", "", " 1", "1 ", "1x", "--1", "0,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(num(bad[i], CLI_NUM_REAL, -1e9, 1e9, &v, why));
        assert_non_null(strstr(why, "is not a finite number"));
    }
    /* ranges */
    assert_false(num("1e300", CLI_NUM_REAL, 0.0, 1e4, &v, why));
    assert_string_equal(why, "is outside [0, 10000]");
    assert_false(num("-1", CLI_NUM_REAL, 0.0, 1e3, &v, why));
    assert_true(num("1000", CLI_NUM_REAL, 0.0, 1e3, &v, why));
    /* unsigned: no sign, no wrap (main: -1 read as 4294967295) */
    const char *ubad[] = {"-1", "+1", "-0", "1.5", "1e3", " 7", "0x10", ""};
    for (size_t i = 0; i < sizeof ubad / sizeof ubad[0]; i++) {
        assert_false(num(ubad[i], CLI_NUM_UINT, 0.0, 4294967295.0, &v, why));
        assert_non_null(strstr(why, "is not a non-negative integer"));
    }
    assert_true(num("4294967295", CLI_NUM_UINT, 0.0, 4294967295.0, &v, why));
    assert_true(v == 4294967295.0);
    assert_false(num("4294967296", CLI_NUM_UINT, 0.0, 4294967295.0, &v, why));
    assert_false(num("99999999999999999999999", CLI_NUM_UINT, 0.0, 4294967295.0, &v, why));
    assert_non_null(strstr(why, "is outside"));
    /* lists */
    double xyz[3];
    assert_false(cli_numbers("-1:-1:-1", ':', 3, CLI_NUM_UINT, 0.0, 4294967295.0, xyz, why, sizeof why));
    assert_true(cli_numbers("1:2:3", ':', 3, CLI_NUM_UINT, 0.0, 4294967295.0, xyz, why, sizeof why));
    assert_true(xyz[0] == 1.0 && xyz[1] == 2.0 && xyz[2] == 3.0);
    assert_false(cli_numbers("1:2", ':', 3, CLI_NUM_UINT, 0.0, 10.0, xyz, why, sizeof why));
    assert_string_equal(why, "is not 3 numbers separated by ':'");
    assert_false(cli_numbers("1:2:3:4", ':', 3, CLI_NUM_UINT, 0.0, 10.0, xyz, why, sizeof why));
    assert_false(cli_numbers("3e38,0,0", ',', 3, CLI_NUM_REAL, -1e6, 1e6, xyz, why, sizeof why));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f1_player_huge_step),
        cmocka_unit_test(f1_root_motion_huge_step),
        cmocka_unit_test(f1_graph_speed),
        cmocka_unit_test(f2_zero_accessor_peak),
        cmocka_unit_test(f3_symlink_out_of_folder),
        cmocka_unit_test(f4_zero_filled_not_written),
        cmocka_unit_test(item5_skipped_and_repaired_warn),
        cmocka_unit_test(fuzz_zero_positions_and_joint_arrays_budget),
        cmocka_unit_test(item5_writer_warns),
        cmocka_unit_test(f5_world_overflow_refused),
        cmocka_unit_test(f5_ik_huge_target),
        cmocka_unit_test(f6_number_parser),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
