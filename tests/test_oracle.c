/* Conformance against three.js: for every model in ../shared/assets/gltf, our
 * sampling is compared with oracle.three.json (three.js GLTFLoader +
 * AnimationMixer; conventions in each file's header): wrapped clip time, local
 * TRS, world matrices, skinning matrices, morph weights and skinned/morphed
 * vertex positions, within the per-asset tolerances of header.tolerances.numeric.
 *
 * Where three.js and the glTF specification differ we follow the
 * specification: we normalise rotation keys (three does not); the oracle's
 * tolerances for assets with non-unit keys (SimpleSkin, AnimatedTriangle)
 * already cover that difference (header.tolerances.nonUnitQuaternions). */
#include "support.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* e, shell: compressed clips (0 otherwise): the requested error and the shell distance in the
 * asset's units, added to the oracle's tolerances as the shell bound allows (see test_oracle_compressed). */
typedef struct tol { double trs, rot, weights, matrix, position, E, e, shell; } tol;
typedef struct stats { long compared, failed; double worst_ratio, worst_clip_time, worst_duration; } stats;

static double num(const cJSON *a, int i) { return cJSON_GetArrayItem(a, i)->valuedouble; }

static void check(stats *st, bool ok, double ratio, const char *what, const char *model, const char *label, int node) {
    st->compared++;
    if (ratio > st->worst_ratio) st->worst_ratio = ratio;
    if (!ok) {
        if (st->failed < 20) fprintf(stderr, "MISMATCH %s %s node/skin %d: %s (%.3g x tolerance)\n", model, label, node, what, ratio);
        st->failed++;
    }
}

/* lever: for a compressed clip, the distance the matrix carries its origin from the joint
 * (0 for a joint's world matrix, |inverse bind translation| for a skin matrix). */
static void cmp_mat(stats *st, const float *a, const cJSON *x, const tol *t, const char *what, const char *model,
                    const char *label, int node, double lever) {
    double mx = 0;
    for (int i = 0; i < 16; i++)
        if (i % 4 != 3 && i < 12) mx = fmax(mx, fabs(num(x, i)));
    double worst = 0, rot = t->shell > 0 ? 2 * t->e / t->shell : 0.0; /* rotation error bound, radians */
    for (int i = 0; i < 16; i++) {
        double lim = (i >= 12 && i < 15) ? t->matrix * t->E + 2 * t->e + rot * lever * fmax(1.0, mx)
                                         : t->matrix * fmax(1.0, mx) + rot * fmax(1.0, mx);
        worst = fmax(worst, fabs(a[i] - num(x, i)) / lim);
    }
    check(st, worst <= 1.0, worst, what, model, label, node);
}

static void run_sample(stats *st, const sk_asset *as, const char *model, int32_t clip, const cJSON *smp, const tol *t,
                       sk_transform *local, sk_mat4 *world, float *weights, sk_mat4 *pal) {
    const sk_skeleton *s = as->skeleton;
    const char *label = cJSON_GetObjectItem(smp, "label")->valuestring;
    const char *mode = cJSON_GetObjectItem(smp, "mode")->valuestring;
    double time = cJSON_GetObjectItem(smp, "t")->valuedouble;
    double expect_ct = cJSON_GetObjectItem(smp, "clipTime")->valuedouble;
    if (clip >= 0) {
        sk_loop_mode loop = strcmp(mode, "once_clamped") == 0 ? SK_LOOP_CLAMP : SK_LOOP_REPEAT;
        double ct = sk_clip_wrap_time(as->clips[clip], time, loop);
        /* The oracle's own limit (header.tolerances.times): 1e-9 * max(1, t). Both sides wrap the
         * double t by the same float32 duration in double arithmetic (t - d*floor(t/d)), so they
         * differ only by double rounding (~1e-16 * t); the oracle writes times at full precision. */
        double lim = 1e-9 * fmax(1.0, time), dct = fabs(ct - expect_ct) / fmax(1.0, time);
        if (dct > st->worst_clip_time) st->worst_clip_time = dct;
        check(st, fabs(ct - expect_ct) <= lim, fabs(ct - expect_ct) / lim, "clipTime", model, label, -1);
        assert_int_equal(sk_clip_sample(as->clips[clip], s, time, loop, SK_POSE_OF(s, local, weights), NULL), SK_OK);
    } else {
        sk_pose_rest(s, SK_POSE_OF(s, local, weights), NULL);
    }
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(smp, "nodes")) {
        int node = cJSON_GetObjectItem(n, "node")->valueint;
        assert_true(node >= 0 && (uint32_t)node < as->node_count);
        uint32_t j = as->node_to_joint[node];
        const cJSON *xt = cJSON_GetObjectItem(n, "t"), *xr = cJSON_GetObjectItem(n, "r"), *xs = cJSON_GetObjectItem(n, "s");
        const float *at = &local[j].t.x, *ar = &local[j].r.x, *asc = &local[j].s.x;
        double w = 0;
        for (int i = 0; i < 3; i++) {
            w = fmax(w, fabs(at[i] - num(xt, i)) / (t->trs * fmax(1.0, fabs(num(xt, i))) + 4 * t->e));
            w = fmax(w, fabs(asc[i] - num(xs, i)) / (t->trs * fmax(1.0, fabs(num(xs, i))) + (t->shell > 0 ? 4 * t->e / t->shell : 0)));
        }
        check(st, w <= 1.0, w, "local t/s", model, label, node);
        double dp = 0, dm = 0;
        for (int i = 0; i < 4; i++) {
            dp = fmax(dp, fabs(ar[i] - num(xr, i)));
            dm = fmax(dm, fabs(ar[i] + num(xr, i)));
        }
        double dr = fmin(dp, dm) / (t->rot + (t->shell > 0 ? 2 * t->e / t->shell : 0.0));
        check(st, dr <= 1.0, dr, "local rotation", model, label, node);
        cmp_mat(st, world[j].m, cJSON_GetObjectItem(n, "world"), t, "world matrix", model, label, node, 0.0);
    }
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(smp, "weights")) {
        int node = cJSON_GetObjectItem(n, "node")->valueint;
        uint32_t j = as->node_to_joint[node];
        const cJSON *xw = cJSON_GetObjectItem(n, "weights");
        assert_int_equal((int)s->weight_count[j], cJSON_GetArraySize(xw));
        double wv = 0;
        for (int i = 0; i < cJSON_GetArraySize(xw); i++)
            wv = fmax(wv, fabs(weights[s->weight_offset[j] + i] - num(xw, i)) / t->weights);
        check(st, wv <= 1.0, wv, "morph weights", model, label, node);
    }
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(smp, "skins")) {
        int si = cJSON_GetObjectItem(n, "skin")->valueint;
        assert_true(si >= 0 && (uint32_t)si < as->skin_count);
        const sk_skin *sk = &as->skins[si];
        sk_skin_palette(sk, world, UINT32_MAX, pal, (sk)->joint_count, NULL);
        const cJSON *mats = cJSON_GetObjectItem(n, "skinMatrices");
        assert_int_equal((int)sk->joint_count, cJSON_GetArraySize(mats));
        for (uint32_t k = 0; k < sk->joint_count; k++)
            cmp_mat(st, pal[k].m, cJSON_GetArrayItem(mats, (int)k), t, "skin matrix", model, label, si,
                    sqrt(sk->inverse_bind[k].m[12] * sk->inverse_bind[k].m[12] + sk->inverse_bind[k].m[13] * sk->inverse_bind[k].m[13] +
                         sk->inverse_bind[k].m[14] * sk->inverse_bind[k].m[14]));
    }
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(smp, "vertices")) {
        int node = cJSON_GetObjectItem(n, "node")->valueint, prim = cJSON_GetObjectItem(n, "primitive")->valueint;
        /* vertex indices come from the asset's vertexSets (same order). */
        const cJSON *vs = cJSON_GetObjectItem(n, "indices_");
        assert_non_null(vs);
        uint32_t j = as->node_to_joint[node];
        const sk_mesh *m = &as->meshes[as->joint_mesh[j]];
        const sk_primitive *p = &m->primitives[prim];
        const float *mw = s->weight_count[j] ? weights + s->weight_offset[j] : NULL;
        const sk_skin *sk = as->joint_skin[j] >= 0 ? &as->skins[as->joint_skin[j]] : NULL;
        if (sk) sk_skin_palette(sk, world, UINT32_MAX, pal, (sk)->joint_count, NULL);
        const cJSON *xw = cJSON_GetObjectItem(n, "world");
        for (int k = 0; k < cJSON_GetArraySize(xw); k++) {
            uint32_t v = (uint32_t)cJSON_GetArrayItem(vs, k)->valueint;
            sk_vec3 pos;
            assert_true(sk_primitive_vertex_position(p, v, mw, sk ? pal : NULL, sk ? sk->joint_count : 0, &world[j], &pos));
            const cJSON *x = cJSON_GetArrayItem(xw, k);
            double d = fmax(fabs(pos.x - num(x, 0)), fmax(fabs(pos.y - num(x, 1)), fabs(pos.z - num(x, 2))));
            /* compressed: the shell bound at the vertex's distance R from the joints that move it
             * (the skin's joints, or the node): 2e (1 + R / shell) */
            double R = 0.0;
            if (t->e > 0) {
                for (uint32_t q = 0; q < (sk ? sk->joint_count : 1); q++) {
                    const float *wm = sk ? world[sk->joints[q]].m : world[j].m;
                    double dx = pos.x - wm[12], dy = pos.y - wm[13], dz = pos.z - wm[14];
                    R = fmax(R, sqrt(dx * dx + dy * dy + dz * dz));
                }
            }
            double r = d / (t->position * t->E + (t->e > 0 ? 2 * t->e * (1 + R / t->shell) : 0.0));
            check(st, r <= 1.0, r, "vertex position", model, label, node);
        }
    }
}

static void test_model(const char *dir, const char *model, stats *total, double error_m, double shell_m, int *compressed) {
    char path[2048], opath[2048];
    snprintf(opath, sizeof opath, "%s/%s/oracle.three.json", dir, model);
    char *text = sk_test_read_file(opath, NULL);
    if (!text) fprintf(stderr, "%s: cannot read\n", opath);
    assert_non_null(text); /* every model folder has its oracle */
    cJSON *o = cJSON_Parse(text);
    free(text);
    assert_non_null(o);
    const cJSON *hdr = cJSON_GetObjectItem(o, "header");
    const char *file = cJSON_GetObjectItem(cJSON_GetObjectItem(hdr, "asset"), "file")->valuestring;
    snprintf(path, sizeof path, "%s/%s/%s", dir, model, file);
    sk_asset *as = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_file(path, NULL, &as, &err);
    if (r != SK_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    assert_int_equal(r, SK_OK);
    const cJSON *num_t = cJSON_GetObjectItem(cJSON_GetObjectItem(hdr, "tolerances"), "numeric");
    tol t = {cJSON_GetObjectItem(num_t, "trs")->valuedouble, cJSON_GetObjectItem(num_t, "rotation")->valuedouble,
             cJSON_GetObjectItem(num_t, "weights")->valuedouble, cJSON_GetObjectItem(num_t, "matrix")->valuedouble,
             cJSON_GetObjectItem(num_t, "position")->valuedouble, cJSON_GetObjectItem(num_t, "E")->valuedouble, error_m,
             shell_m};
    /* Compressed: every clip the compressor takes replaces the asset's (kept to destroy). */
    sk_clip **orig = calloc(as->clip_count + 1, sizeof *orig);
    if (error_m > 0)
        for (uint32_t ci = 0; ci < as->clip_count; ci++) {
            sk_compress_options co = {100 * error_m, 100 * shell_m, 1.0, 0, 0, 0};
            sk_clip *cc = NULL;
            if (sk_clip_compress(as->clips[ci], as->skeleton, &co, NULL, &cc, NULL, NULL) == SK_OK) {
                orig[ci] = as->clips[ci];
                ((sk_clip **)as->clips)[ci] = cc;
                (*compressed)++;
            }
        }
    /* Attach each vertexSet's indices to the matching vertices entries (same order). */
    const cJSON *sets = cJSON_GetObjectItem(o, "vertexSets");
    uint32_t n = as->skeleton->joint_count;
    sk_transform *local = calloc(n, sizeof *local);
    sk_mat4 *world = calloc(n, sizeof *world);
    float *weights = calloc(as->skeleton->weight_total + 1, sizeof *weights);
    uint32_t maxj = 1;
    for (uint32_t i = 0; i < as->skin_count; i++)
        if (as->skins[i].joint_count > maxj) maxj = as->skins[i].joint_count;
    sk_mat4 *pal = calloc(maxj, sizeof *pal);
    stats st = {0, 0, 0, 0, 0};
    long samples = 0, expected_samples = 1; /* the rest pose */
    cJSON *all = cJSON_CreateArray();
    cJSON_AddItemReferenceToArray(all, cJSON_GetObjectItem(o, "rest"));
    const cJSON *clips = cJSON_GetObjectItem(o, "clips"), *c;
    assert_int_equal((int)as->clip_count, cJSON_GetArraySize(clips));
    cJSON_ArrayForEach(c, clips) expected_samples += cJSON_GetArraySize(cJSON_GetObjectItem(c, "samples"));
    /* Rest first (clip -1), then every clip's samples. */
    for (int pass = -1; pass < cJSON_GetArraySize(clips); pass++) {
        const cJSON *list = pass < 0 ? all : cJSON_GetObjectItem(cJSON_GetArrayItem(clips, pass), "samples");
        if (pass >= 0) {
            c = cJSON_GetArrayItem(clips, pass);
            double d = cJSON_GetObjectItem(c, "duration")->valuedouble, dd = fabs(sk_clip_duration(as->clips[pass]) - d);
            /* The same float32 number on both sides (the last key time, a float32 in the file; the
             * oracle writes times at full precision): the oracle's time limit, 1e-9 * max(1, d). */
            if (dd > st.worst_duration) st.worst_duration = dd;
            assert_true(dd <= 1e-9 * fmax(1, d));
        }
        const cJSON *smp;
        cJSON_ArrayForEach(smp, list) {
            cJSON *vlist = cJSON_GetObjectItem(smp, "vertices"), *v;
            int k = 0;
            cJSON_ArrayForEach(v, vlist) {
                const cJSON *set = cJSON_GetArrayItem(sets, k++);
                if (!cJSON_GetObjectItem(v, "indices_"))
                    cJSON_AddItemReferenceToObject(v, "indices_", cJSON_GetObjectItem(set, "indices"));
            }
            run_sample(&st, as, model, pass, smp, &t, local, world, weights, pal);
            samples++;
        }
    }
    printf("%-20s %3ld samples, %6ld values compared, %ld mismatches, worst %.3f of tolerance; "
           "clip time off by %.2g * max(1, t), duration by %.2g s\n",
           model, samples, st.compared, st.failed, st.worst_ratio, st.worst_clip_time, st.worst_duration);
    assert_int_equal(samples, expected_samples);
    assert_true(st.compared > samples); /* every sample compared something */
    total->compared += st.compared;
    total->failed += st.failed;
    if (st.worst_ratio > total->worst_ratio) total->worst_ratio = st.worst_ratio;
    if (st.worst_clip_time > total->worst_clip_time) total->worst_clip_time = st.worst_clip_time;
    if (st.worst_duration > total->worst_duration) total->worst_duration = st.worst_duration;
    cJSON_Delete(all);
    cJSON_Delete(o);
    for (uint32_t ci = 0; ci < as->clip_count; ci++)
        if (orig[ci]) {
            sk_clip_destroy(as->clips[ci]);
            ((sk_clip **)as->clips)[ci] = orig[ci];
        }
    free(orig);
    free(local);
    free(world);
    free(weights);
    free(pal);
    sk_asset_destroy(as);
}

/* The models of ../shared/assets/gltf (its README lists them; LICENSES/ holds
 * license texts, every other folder is a model with its oracle.three.json).
 * Counted from the folder and checked against this number, so a model that
 * goes missing (or a new one without an oracle) fails the test. */
enum { ORACLE_MODELS = 12 };

static void test_oracle_all(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/assets/gltf", shared);
    char *names[256];
    int count = sk_test_model_dirs(dir, names, 256);
    stats total = {0, 0, 0, 0, 0};
    int compressed = 0;
    for (int i = 0; i < count; i++) {
        test_model(dir, names[i], &total, 0.0, 0.0, &compressed);
        free(names[i]);
    }
    printf("three.js oracle: %d models, %ld values compared, %ld mismatches (worst %.3f of tolerance); "
           "clip times within %.2g * max(1, t) (limit 1e-9), durations within %.2g s (limit 1e-9 * max(1, d))\n",
           count, total.compared, total.failed, total.worst_ratio, total.worst_clip_time, total.worst_duration);
    assert_int_equal(count, ORACLE_MODELS);
    assert_int_equal(total.failed, 0);
}

/* The same oracle on compressed clips (offline/compress.h; 0.01 cm, 3 cm shell), its tolerances
 * widened by what the requested error e allows: 2e at a joint, 2e / shell radians of
 * rotation, and 2e (1 + R / shell) for a vertex R from the joints that move it (the
 * shell bound grows with the distance from the joint). Clips the compressor keeps as
 * keys (morph weights) are compared as they are. */
enum { ORACLE_COMPRESSED_CLIPS = 17 }; /* InterpolationTest's STEP clips and its CUBICSPLINE translation since blob version 5 */

static void test_oracle_compressed(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/assets/gltf", shared);
    char *names[256];
    int count = sk_test_model_dirs(dir, names, 256), compressed = 0;
    stats total = {0, 0, 0, 0, 0};
    for (int i = 0; i < count; i++) {
        test_model(dir, names[i], &total, 1e-4, 0.03, &compressed);
        free(names[i]);
    }
    printf("three.js oracle on compressed clips: %d models, %d clips compressed, %ld values compared, %ld mismatches "
           "(worst %.3f of tolerance)\n",
           count, compressed, total.compared, total.failed, total.worst_ratio);
    assert_int_equal(count, ORACLE_MODELS);
    assert_int_equal(compressed, ORACLE_COMPRESSED_CLIPS);
    assert_int_equal(total.failed, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_oracle_all), cmocka_unit_test(test_oracle_compressed)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
