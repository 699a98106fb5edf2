/* glTF reader: the shared real-world assets against their three.js oracle
 * (structure, rest pose, skins, vertex data, clips), plus small handwritten
 * documents (data: URIs) for byteStride, normalised integers, sparse
 * accessors, matrix nodes, hierarchy order, GLB, external files, and
 * rejections that must name the JSON path. */
#include "support.h"
#include "io/json_internal.h" /* sk_json_check: the syntax checker behind the readers' syntax errors */

#include <cjson/cJSON.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------- */

static char *b64(const void *data, size_t n) {
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    char *o = malloc((n + 2) / 3 * 4 + 1), *q = o;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *q++ = tbl[(v >> 18) & 63];
        *q++ = tbl[(v >> 12) & 63];
        *q++ = i + 1 < n ? tbl[(v >> 6) & 63] : '=';
        *q++ = i + 2 < n ? tbl[v & 63] : '=';
    }
    *q = 0;
    return o;
}

/* JSON with every "@URI@" replaced by a data: URI of the bytes. */
static char *with_uri(const char *json, const void *bin, size_t n) {
    char *e = b64(bin, n);
    const char *prefix = "data:application/octet-stream;base64,";
    size_t cap = strlen(json) + 4 * (strlen(prefix) + strlen(e)) + 1;
    char *out = malloc(cap), *o = out;
    for (const char *s = json; *s;) {
        if (strncmp(s, "@URI@", 5) == 0) {
            o += sprintf(o, "%s%s", prefix, e);
            s += 5;
        } else {
            *o++ = *s++;
        }
    }
    *o = 0;
    free(e);
    return out;
}

static sk_result load_str(const char *json, sk_asset **out, sk_error *err) {
    return sk_gltf_load_memory(json, strlen(json), NULL, NULL, out, err);
}

static sk_result load_bin(const char *json, const void *bin, size_t n, sk_asset **out, sk_error *err) {
    char *j = with_uri(json, bin, n);
    sk_result r = load_str(j, out, err);
    free(j);
    return r;
}

/* Expects a rejection with code and a message containing every needle. */
static void expect_reject(const char *json, const void *bin, size_t n, sk_result code, const char *needle) {
    sk_asset *a = (sk_asset *)1;
    sk_error err = {0};
    sk_result r = bin ? load_bin(json, bin, n, &a, &err) : load_str(json, &a, &err);
    if (r != code || !strstr(err.message, needle))
        fprintf(stderr, "expected %s containing \"%s\", got %s: %s\n", sk_result_string(code), needle,
                sk_result_string(r), err.message);
    assert_int_equal(r, code);
    assert_null(a);
    assert_non_null(strstr(err.message, needle));
}

static void near(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol * fmax(1.0, fabs(b)))) {
        fprintf(stderr, "not near: %.9g vs %.9g (tol %g)\n", a, b, tol);
        fail();
    }
}

static uint32_t joint_of(const sk_asset *a, uint32_t node) {
    assert_true(node < a->node_count);
    return a->node_to_joint[node];
}

static int32_t find_track(const sk_clip *c, uint32_t joint, sk_track_path path) {
    for (uint32_t i = 0; i < sk_clip_track_count(c); i++) {
        sk_track_info info;
        assert_true(sk_clip_track_info(c, i, &info));
        if (info.joint == joint && info.path == path) return (int32_t)i;
    }
    return -1;
}

/* ---- shared assets vs. oracle -------------------------------------------- */

static double num(const cJSON *arr, int i) {
    const cJSON *x = cJSON_GetArrayItem(arr, i);
    assert_true(cJSON_IsNumber(x));
    return x->valuedouble;
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* Returns whether the folder held a model with an oracle (and checked it). */
static bool check_model(const char *dir, const char *model) {
    char path[1024], file[1024];
    if (snprintf(path, sizeof path, "%s/%s/oracle.three.json", dir, model) >= (int)sizeof path) return false;
    char *text = sk_test_read_file(path, NULL);
    if (!text) return false; /* not a model folder */
    cJSON *o = cJSON_Parse(text);
    free(text);
    assert_non_null(o);
    int wr = snprintf(file, sizeof file, "%s/%s/%s.glb", dir, model, model);
    struct stat st;
    if (stat(file, &st) != 0) wr = snprintf(file, sizeof file, "%s/%s/%s.gltf", dir, model, model);
    assert_true(wr > 0 && wr < (int)sizeof file);
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_file(file, NULL, &a, &err);
    if (r != SK_OK) fprintf(stderr, "%s: %s\n", model, err.message);
    assert_int_equal(r, SK_OK);
    const sk_skeleton *sk = a->skeleton;

    /* nodes */
    const cJSON *nodes = get(o, "nodes");
    assert_int_equal(a->node_count, cJSON_GetArraySize(nodes));
    assert_int_equal(sk->joint_count, a->node_count);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        assert_true(sk->parents[j] < (int32_t)j);
        assert_int_equal(a->node_to_joint[a->joint_to_node[j]], j);
    }
    const cJSON *n;
    cJSON_ArrayForEach(n, nodes) {
        uint32_t idx = (uint32_t)get(n, "index")->valueint;
        uint32_t j = joint_of(a, idx);
        const cJSON *name = get(n, "name");
        assert_string_equal(sk->names[j], cJSON_IsString(name) ? name->valuestring : "");
        int parent = get(n, "parent")->valueint;
        assert_int_equal(sk->parents[j], parent < 0 ? -1 : (int32_t)joint_of(a, (uint32_t)parent));
        const cJSON *mesh = get(n, "mesh"), *skin = get(n, "skin");
        assert_int_equal(a->joint_mesh[j], cJSON_IsNumber(mesh) ? mesh->valueint : -1);
        assert_int_equal(a->joint_skin[j], cJSON_IsNumber(skin) ? skin->valueint : -1);
        const cJSON *rest = get(n, "rest");
        const sk_transform *x = &sk->rest[j];
        for (int k = 0; k < 3; k++) {
            near((&x->t.x)[k], num(get(rest, "t"), k), 1e-5);
            near((&x->s.x)[k], num(get(rest, "s"), k), 1e-5);
        }
        double dot = 0, len = 0;
        for (int k = 0; k < 4; k++) {
            dot += (&x->r.x)[k] * num(get(rest, "r"), k);
            len += num(get(rest, "r"), k) * num(get(rest, "r"), k);
        }
        near(fabs(dot) / sqrt(len), 1.0, 1e-5);
    }
    /* skins */
    const cJSON *skins = get(o, "skins"), *s;
    assert_int_equal(a->skin_count, cJSON_GetArraySize(skins));
    cJSON_ArrayForEach(s, skins) {
        const sk_skin *skin = &a->skins[get(s, "index")->valueint];
        const cJSON *joints = get(s, "joints");
        assert_int_equal(skin->joint_count, cJSON_GetArraySize(joints));
        for (uint32_t k = 0; k < skin->joint_count; k++)
            assert_int_equal(skin->joints[k], joint_of(a, (uint32_t)num(joints, (int)k)));
        const cJSON *skel = get(s, "skeleton");
        assert_int_equal(skin->skeleton_root, cJSON_IsNumber(skel) ? (int32_t)joint_of(a, (uint32_t)skel->valueint) : -1);
    }
    /* vertex sets */
    const cJSON *vs;
    cJSON_ArrayForEach(vs, get(o, "vertexSets")) {
        int m = get(vs, "mesh")->valueint, p = get(vs, "primitive")->valueint;
        assert_true(m < (int)a->mesh_count && p < (int)a->meshes[m].primitive_count);
        const sk_primitive *prim = &a->meshes[m].primitives[p];
        assert_int_equal(prim->vertex_count, get(vs, "vertexCount")->valueint);
        const cJSON *ind = get(vs, "indices"), *bl = get(vs, "bindLocal"), *si = get(vs, "skinIndex"),
                    *sw = get(vs, "skinWeight");
        for (int i = 0; i < cJSON_GetArraySize(ind); i++) {
            uint32_t v = (uint32_t)num(ind, i);
            assert_true(v < prim->vertex_count);
            for (int k = 0; k < 3; k++) near(prim->positions[v * 3 + k], num(cJSON_GetArrayItem(bl, i), k), 1e-5);
            if (si) {
                assert_true(prim->influence_count >= 4);
                const float *w = prim->weights + (size_t)v * prim->influence_count;
                double sum = w[0] + w[1] + w[2] + w[3];
                for (int k = 0; k < 4; k++) {
                    double want_w = num(cJSON_GetArrayItem(sw, i), k);
                    double got_w = sum > 0 ? w[k] / sum : (k == 0 ? 1.0 : 0.0);
                    near(got_w, want_w, 1e-5);
                    if (want_w > 0)
                        assert_int_equal(prim->joints[(size_t)v * prim->influence_count + k],
                                         (int)num(cJSON_GetArrayItem(si, i), k));
                }
            }
        }
    }
    /* clips */
    const cJSON *clips = get(o, "clips"), *c;
    assert_int_equal(a->clip_count, cJSON_GetArraySize(clips));
    cJSON_ArrayForEach(c, clips) {
        const sk_clip *clip = a->clips[get(c, "index")->valueint];
        const cJSON *name = get(c, "name");
        assert_string_equal(sk_clip_name(clip), cJSON_IsString(name) ? name->valuestring : "");
        near(sk_clip_duration(clip), get(c, "duration")->valuedouble, 1e-6);
        const cJSON *ch;
        cJSON_ArrayForEach(ch, get(c, "channels")) {
            const char *pn = get(ch, "path")->valuestring;
            sk_track_path tp = strcmp(pn, "translation") == 0 ? SK_PATH_TRANSLATION
                               : strcmp(pn, "rotation") == 0  ? SK_PATH_ROTATION
                               : strcmp(pn, "scale") == 0     ? SK_PATH_SCALE
                                                              : SK_PATH_WEIGHTS;
            int32_t t = find_track(clip, joint_of(a, (uint32_t)get(ch, "node")->valueint), tp);
            assert_true(t >= 0);
            sk_track_info info;
            assert_true(sk_clip_track_info(clip, (uint32_t)t, &info));
            assert_int_equal(info.key_count, get(ch, "keyCount")->valueint);
            const char *ip = get(ch, "interpolation")->valuestring;
            assert_int_equal(info.interpolation, strcmp(ip, "STEP") == 0          ? SK_INTERP_STEP
                                                 : strcmp(ip, "CUBICSPLINE") == 0 ? SK_INTERP_CUBICSPLINE
                                                                                  : SK_INTERP_LINEAR);
            near(info.time_min, get(ch, "tMin")->valuedouble, 1e-6);
            near(info.time_max, get(ch, "tMax")->valuedouble, 1e-6);
        }
    }
    printf("  %-20s %u nodes, %u meshes, %u skins, %u clips: ok\n", model, a->node_count, a->mesh_count, a->skin_count,
           a->clip_count);
    sk_asset_destroy(a);
    cJSON_Delete(o);
    return true;
}

static void test_shared_assets(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/assets/gltf", shared);
    char *names[256];
    size_t count = (size_t)sk_test_model_dirs(dir, names, 256);
    unsigned models = 0;
    for (size_t i = 0; i < count; i++) {
        models += check_model(dir, names[i]);
        free(names[i]);
    }
    printf("%u models checked against their three.js oracle\n", models);
    assert_int_equal(models, 12); /* every model of ../shared/assets/gltf */
}

/* ---- handwritten documents ----------------------------------------------- */

/* Interleaved vertex buffer: stride 20 = POSITION (12) + TEXCOORD_0 as
 * normalised UNSIGNED_SHORT (4) + 4 padding bytes. */
static void test_byte_stride_and_normalized(void **state) {
    (void)state;
    unsigned char bin[60 + 8 + 12];
    memset(bin, 0, sizeof bin);
    for (int v = 0; v < 3; v++) {
        float p[3] = {(float)v, (float)v * 2.0f, -(float)v};
        memcpy(bin + v * 20, p, 12);
        uint16_t uv[2] = {(uint16_t)(v * 32767), 65535};
        memcpy(bin + v * 20 + 12, uv, 4);
    }
    /* rotation output as normalised SHORT: (0, 0, 0, 32767) and (0, 0, -32768 -> -1, 0) */
    int16_t q[8] = {0, 0, 0, 32767, 0, 0, -32768, 0};
    memcpy(bin + 60, q, 16); /* 60..75 (overlaps into the time area start: fixed below) */
    float t[2] = {0.0f, 1.0f};
    unsigned char full[92];
    memset(full, 0, sizeof full);
    memcpy(full, bin, 60);
    memcpy(full + 60, q, 16);
    memcpy(full + 76, t, 8);
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":84,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60,\"byteStride\":20},"
        "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":76,\"byteLength\":8}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,-2],\"max\":[2,4,0]},"
        "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5123,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"},"
        "{\"bufferView\":1,\"componentType\":5122,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1}}]}],"
        "\"nodes\":[{\"mesh\":0,\"name\":\"m\"}],"
        "\"animations\":[{\"name\":\"spin\",\"samplers\":[{\"input\":3,\"output\":2,\"interpolation\":\"STEP\"}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}";
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = load_bin(json, full, 84, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    const sk_primitive *p = &a->meshes[0].primitives[0];
    assert_int_equal(p->vertex_count, 3);
    for (int v = 0; v < 3; v++) {
        near(p->positions[v * 3 + 0], v, 0);
        near(p->positions[v * 3 + 1], 2 * v, 0);
        near(p->positions[v * 3 + 2], -v, 0);
        near(p->texcoords[v * 2 + 0], v * 32767 / 65535.0, 1e-6);
        near(p->texcoords[v * 2 + 1], 1.0, 0);
    }
    assert_null(p->normals);
    assert_int_equal(p->mode, 4);
    assert_int_equal(p->material, -1);
    near(p->base_color[3], 1.0, 0);
    assert_int_equal(a->clip_count, 1);
    assert_string_equal(sk_clip_name(a->clips[0]), "spin");
    float times[2], values[8];
    assert_true(sk_clip_track_keys(a->clips[0], 0, times, values));
    near(values[3], 1.0, 0);
    near(values[6], -1.0, 0); /* -32768 clamps to -1 */
    assert_int_equal(a->scene_count, 0);
    assert_int_equal(a->default_scene, -1);
    sk_asset_destroy(a);
}

/* Sparse accessors: over a bufferView and over zeros (no bufferView). */
static void test_sparse(void **state) {
    (void)state;
    unsigned char bin[36 + 4 + 12];
    float base[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
    uint16_t idx[2] = {0, 2};
    float vals[3] = {9, 8, 7};
    memcpy(bin, base, 36);
    memcpy(bin + 36, idx, 4);
    memcpy(bin + 40, vals, 12);
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":52,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":4},"
        "{\"buffer\":0,\"byteOffset\":40,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"byteOffset\":2,\"componentType\":5123},"
        "\"values\":{\"bufferView\":2,\"componentType\":5126}}},"
        "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5123},"
        "\"values\":{\"bufferView\":2}}}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":1}]}],\"weights\":[0.5]}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = load_bin(json, bin, sizeof bin, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    const sk_primitive *p = &a->meshes[0].primitives[0];
    float want[9] = {1, 1, 1, 2, 2, 2, 9, 8, 7};
    for (int i = 0; i < 9; i++) near(p->positions[i], want[i], 0);
    assert_int_equal(p->target_count, 1);
    float want_t[9] = {9, 8, 7, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 9; i++) near(p->targets[0].positions[i], want_t[i], 0);
    assert_int_equal(a->meshes[0].weight_count, 1);
    near(a->meshes[0].default_weights[0], 0.5, 0);
    assert_int_equal(a->skeleton->weight_total, 1);
    near(a->skeleton->rest_weights[0], 0.5, 0);
    assert_int_equal(a->default_scene, 0);
    sk_asset_destroy(a);

    /* Sparse indices not strictly increasing, and out of range. */
    uint16_t bad[2] = {2, 2};
    memcpy(bin + 36, bad, 4);
    const char *json2 =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":52,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":4},"
        "{\"buffer\":0,\"byteOffset\":40,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\","
        "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,\"componentType\":5123},"
        "\"values\":{\"bufferView\":2,\"componentType\":5126}}}]}";
    expect_reject(json2, bin, sizeof bin, SK_ERR_INVALID_DATA, "/accessors/0/sparse/indices: indices are not strictly");
    uint16_t oob[2] = {0, 3};
    memcpy(bin + 36, oob, 4);
    expect_reject(json2, bin, sizeof bin, SK_ERR_INVALID_DATA, "/accessors/0/sparse/indices: index 3");
}

/* Node matrix decomposed into TRS; several roots; children listed with both
 * larger and smaller indices; every node becomes a joint, parent first. */
static void test_matrix_and_hierarchy(void **state) {
    (void)state;
    const char *json =
        "{\"asset\":{\"version\":\"2.0\",\"generator\":\"hand\"},\"scene\":1,"
        "\"nodes\":["
        "{\"name\":\"leaf\"},"                                     /* 0: child of 3 */
        "{\"name\":\"rootA\",\"children\":[3,4]},"                 /* 1 */
        "{\"name\":\"rootB\",\"matrix\":[2,0,0,0, 0,0,2,0, 0,-2,0,0, 1,2,3,1]}," /* 2: s=2, 90deg about x */
        "{\"name\":\"mid\",\"children\":[0],\"translation\":[0,1,0]},"  /* 3 */
        "{\"name\":\"side\",\"rotation\":[0,0,0,2]}],"              /* 4: non-unit rotation */
        "\"scenes\":[{\"nodes\":[1]},{\"name\":\"both\",\"nodes\":[2,1]}]}";
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = load_str(json, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    const sk_skeleton *s = a->skeleton;
    assert_int_equal(s->joint_count, 5);
    assert_string_equal(a->generator, "hand");
    for (uint32_t j = 0; j < 5; j++) assert_true(s->parents[j] < (int32_t)j);
    assert_int_equal(s->parents[joint_of(a, 0)], (int32_t)joint_of(a, 3));
    assert_int_equal(s->parents[joint_of(a, 3)], (int32_t)joint_of(a, 1));
    assert_int_equal(s->parents[joint_of(a, 4)], (int32_t)joint_of(a, 1));
    assert_int_equal(s->parents[joint_of(a, 1)], -1);
    assert_int_equal(s->parents[joint_of(a, 2)], -1);
    assert_string_equal(s->names[joint_of(a, 0)], "leaf");
    const sk_transform *m = &s->rest[joint_of(a, 2)];
    near(m->t.x, 1, 1e-6);
    near(m->t.y, 2, 1e-6);
    near(m->t.z, 3, 1e-6);
    near(m->s.x, 2, 1e-5);
    near(m->s.y, 2, 1e-5);
    near(m->s.z, 2, 1e-5);
    near(fabs(m->r.x), sqrt(0.5), 1e-5);
    near(fabs(m->r.w), sqrt(0.5), 1e-5);
    near(s->rest[joint_of(a, 4)].r.w, 1.0, 1e-6); /* stored normalised */
    assert_int_equal(a->scene_count, 2);
    assert_int_equal(a->default_scene, 1);
    assert_string_equal(a->scenes[1].name, "both");
    assert_int_equal(a->scenes[1].root_count, 2);
    assert_int_equal(a->scenes[1].roots[0], joint_of(a, 2));
    assert_int_equal(a->scenes[1].roots[1], joint_of(a, 1));
    sk_asset_destroy(a);

    /* A singular matrix cannot be decomposed. */
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"matrix\":[0,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}]}",
                  NULL, 0, SK_ERR_INVALID_DATA, "/nodes/0/matrix");
}

/* A skinned mesh with 8 influences, inverse bind matrices, an animation. */
static void test_skin(void **state) {
    (void)state;
    unsigned char bin[512];
    memset(bin, 0, sizeof bin);
    float pos[6] = {0, 0, 0, 0, 1, 0};
    memcpy(bin, pos, 24);                                    /* 0..24 */
    uint8_t j0[8] = {0, 1, 0, 0, 1, 0, 0, 0}, j1[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    memcpy(bin + 24, j0, 8);                                 /* 24..32 */
    memcpy(bin + 32, j1, 8);                                 /* 32..40 */
    uint8_t w0[8] = {128, 127, 0, 0, 255, 0, 0, 0}, w1[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(bin + 40, w0, 8);                                 /* 40..48 */
    memcpy(bin + 48, w1, 8);                                 /* 48..56 */
    float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    memcpy(bin + 56, ibm, 128);                              /* 56..184 */
    float times[3] = {0, 0.5f, 1};
    memcpy(bin + 184, times, 12);                            /* 184..196 */
    float tr[27];
    for (int i = 0; i < 27; i++) tr[i] = (float)i;
    memcpy(bin + 196, tr, 108);                              /* 196..304 */
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":304,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":24,\"byteLength\":32},"
        "{\"buffer\":0,\"byteOffset\":56,\"byteLength\":128},{\"buffer\":0,\"byteOffset\":184,\"byteLength\":12},"
        "{\"buffer\":0,\"byteOffset\":196,\"byteLength\":108}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0,1,0]},"
        "{\"bufferView\":1,\"componentType\":5121,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":1,\"byteOffset\":8,\"componentType\":5121,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":1,\"byteOffset\":16,\"componentType\":5121,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":1,\"byteOffset\":24,\"componentType\":5121,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":4,\"componentType\":5126,\"count\":9,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"JOINTS_1\":2,"
        "\"WEIGHTS_0\":3,\"WEIGHTS_1\":4}}]}],"
        "\"skins\":[{\"name\":\"sk\",\"joints\":[2,1],\"inverseBindMatrices\":5,\"skeleton\":1}],"
        "\"nodes\":[{\"mesh\":0,\"skin\":0},{\"children\":[2]},{\"translation\":[0,1,0]}],"
        "\"animations\":[{\"samplers\":[{\"input\":6,\"output\":7,\"interpolation\":\"CUBICSPLINE\"}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}},"
        "{\"sampler\":0,\"target\":{\"path\":\"translation\"}}]}]}";
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = load_bin(json, bin, 304, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    const sk_primitive *p = &a->meshes[0].primitives[0];
    assert_int_equal(p->influence_count, 8);
    assert_int_equal(p->joints[0], 0);
    assert_int_equal(p->joints[1], 1);
    assert_int_equal(p->joints[4], 1);
    near(p->weights[0], 128 / 255.0, 1e-6);
    near(p->weights[1], 127 / 255.0, 1e-6);
    near(p->weights[8], 1.0, 0);
    assert_int_equal(a->skin_count, 1);
    assert_string_equal(a->skins[0].name, "sk");
    assert_int_equal(a->skins[0].joints[0], joint_of(a, 2));
    assert_int_equal(a->skins[0].joints[1], joint_of(a, 1));
    assert_int_equal(a->skins[0].skeleton_root, (int32_t)joint_of(a, 1));
    near(a->skins[0].inverse_bind[1].m[13], -1.0, 0);
    assert_int_equal(a->joint_skin[joint_of(a, 0)], 0);
    assert_int_equal(a->clip_count, 1);
    assert_string_equal(sk_clip_name(a->clips[0]), "");
    assert_int_equal(sk_clip_track_count(a->clips[0]), 1); /* the channel without a node is skipped */
    sk_track_info info;
    assert_true(sk_clip_track_info(a->clips[0], 0, &info));
    assert_int_equal(info.interpolation, SK_INTERP_CUBICSPLINE);
    assert_int_equal(info.key_count, 3);
    near(sk_clip_duration(a->clips[0]), 1.0, 0);
    sk_asset_destroy(a);

    /* A joint index past the skin's joint count. */
    uint8_t bad = 2;
    memcpy(bin + 25, &bad, 1);
    expect_reject(json, bin, 304, SK_ERR_INVALID_DATA, "/meshes/0/primitives/0/attributes/JOINTS_0");
}

/* Rejections, each naming the JSON path. */
static void test_rejections(void **state) {
    (void)state;
    float f[4] = {0, 1, 2, 3};
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[2]},{\"children\":[0]}]}",
                  NULL, 0, SK_ERR_INVALID_DATA, "cycle");
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[1]}]}", NULL, 0,
                  SK_ERR_INVALID_DATA, "/nodes/1/children/0");
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2]},{\"children\":[2]},{}]}", NULL, 0,
                  SK_ERR_INVALID_DATA, "/nodes/1/children/0: node 2 already has parent 0");
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[5]}]}", NULL, 0, SK_ERR_INVALID_DATA,
                  "/nodes/0/children/0");
    /* count past the bufferView */
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,\"uri\":\"@URI@\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]}",
                  f, 16, SK_ERR_INVALID_DATA, "/accessors/0/count: 2 elements of 12 bytes");
    /* bufferView past the buffer; buffer longer than its data */
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,\"uri\":\"@URI@\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":8,\"byteLength\":12}]}",
                  f, 16, SK_ERR_INVALID_DATA, "/bufferViews/0/byteLength");
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":17,\"uri\":\"@URI@\"}]}", f, 16,
                  SK_ERR_INVALID_DATA, "/buffers/0/byteLength");
    /* bad node index in a skin; duplicated joint */
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[0,3]}]}", NULL, 0,
                  SK_ERR_INVALID_DATA, "/skins/0/joints/1");
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[0,0]}]}", NULL, 0,
                  SK_ERR_INVALID_DATA, "/skins/0/joints/1: node 0 is listed twice");
    /* bad strides */
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,\"uri\":\"@URI@\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16,\"byteStride\":6}]}",
                  f, 16, SK_ERR_INVALID_DATA, "/bufferViews/0/byteStride");
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,\"uri\":\"@URI@\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16,\"byteStride\":8}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}]}",
                  f, 16, SK_ERR_INVALID_DATA, "/accessors/0: byteStride 8 of bufferView 0 is smaller");
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,\"uri\":\"@URI@\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                  "\"accessors\":[{\"bufferView\":0,\"byteOffset\":2,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}]}",
                  f, 16, SK_ERR_INVALID_DATA, "/accessors/0/byteOffset");
    /* unsupported required extension */
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_draco_mesh_compression\"],"
                  "\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]}",
                  NULL, 0, SK_ERR_UNSUPPORTED, "/extensionsRequired/0");
    /* bad base64 */
    expect_reject("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":3,"
                  "\"uri\":\"data:application/octet-stream;base64,AA*A\"}]}",
                  NULL, 0, SK_ERR_INVALID_DATA, "/buffers/0/uri: invalid base64");
    /* bad JSON, not an object */
    expect_reject("{\"asset\":", NULL, 0, SK_ERR_PARSE, "JSON");
    expect_reject("[]", NULL, 0, SK_ERR_INVALID_DATA, "not an object");
    expect_reject("{\"asset\":{\"version\":\"1.0\"}}", NULL, 0, SK_ERR_UNSUPPORTED, "/asset/version");
    /* NaN key time, decreasing key time */
    float t[2] = {0.0f, NAN}, v[6] = {0};
    unsigned char bin[32];
    memcpy(bin, t, 8);
    memcpy(bin + 8, v, 24);
    const char *anim =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":32,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],\"nodes\":[{}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";
    expect_reject(anim, bin, 32, SK_ERR_INVALID_DATA, "/accessors/0: element 1 component 0 is not finite");
    t[1] = -1.0f;
    memcpy(bin, t, 8);
    expect_reject(anim, bin, 32, SK_ERR_INVALID_DATA, "/animations/0/samplers/0/input");
    t[0] = 1.0f;
    t[1] = 1.0f;
    memcpy(bin, t, 8);
    expect_reject(anim, bin, 32, SK_ERR_INVALID_DATA, "not strictly increasing");
    /* duplicate channel target */
    t[0] = 0.0f;
    memcpy(bin, t, 8);
    const char *dup =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":32,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],\"nodes\":[{}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}},"
        "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}";
    expect_reject(dup, bin, 32, SK_ERR_INVALID_DATA, "/animations/0/channels/1/target");
    /* index past the vertex count */
    const char *idx =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,\"byteLength\":4}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}]}";
    unsigned char ib[16] = {0};
    ib[13] = 1;
    expect_reject(idx, ib, 16, SK_ERR_INVALID_DATA, "/meshes/0/primitives/0/indices: index 1 is 1");
}

/* GLB container: valid round trip, then truncations and corruptions. */
/* Inf/NaN in animation keys read in place: the reader checks them in its
 * one pass over each channel's values (translation bounds, scale bounds,
 * rotation lengths) instead of when the accessor is loaded, and data that no
 * step reads at the end of the load. Each case must name the accessor,
 * element and component, in the SIMD body (elements 0-7) and the tail (8). */
static void test_nonfinite_keys(void **state) {
    (void)state;
    enum { K = 9 };
    float buf[K + 3 * K + 4 * K + 3 * K + 3];
    const char *doc =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":408,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":108},"
        "{\"buffer\":0,\"byteOffset\":144,\"byteLength\":144},{\"buffer\":0,\"byteOffset\":288,\"byteLength\":108},"
        "{\"buffer\":0,\"byteOffset\":396,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":9,\"type\":\"SCALAR\",\"min\":[0],\"max\":[8]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":9,\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":9,\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":9,\"type\":\"VEC3\"},"
        "{\"bufferView\":4,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}],\"nodes\":[{}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1},{\"input\":0,\"output\":2},{\"input\":0,\"output\":3}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
        "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}},"
        "{\"sampler\":2,\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}";
    const struct { uint32_t acc, elem, comp; float bad; } cases[] = {
        {1, 0, 0, NAN}, {1, 5, 2, INFINITY}, {1, 8, 1, -INFINITY}, {2, 0, 3, NAN}, {2, 6, 1, INFINITY},
        {2, 8, 2, NAN}, {3, 3, 0, NAN},     {3, 8, 2, -INFINITY}, {4, 0, 1, NAN},
    };
    const uint32_t first[5] = {0, K, 4 * K, 8 * K, 11 * K}, width[5] = {1, 3, 4, 3, 3};
    size_t checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (uint32_t k = 0; k < K; k++) {
            buf[k] = (float)k;
            for (uint32_t i = 0; i < 3; i++) buf[K + 3 * k + i] = 0.5f * (float)i, buf[8 * K + 3 * k + i] = 1.0f;
            for (uint32_t i = 0; i < 4; i++) buf[4 * K + 4 * k + i] = i == 3 ? 1.0f : 0.0f;
        }
        buf[11 * K] = buf[11 * K + 1] = buf[11 * K + 2] = 0.0f;
        if (c == 0) { /* the clean file loads */
            sk_asset *a = NULL;
            sk_error err = {0};
            assert_int_equal(load_bin(doc, buf, sizeof buf, &a, &err), SK_OK);
            assert_int_equal(a->clip_count, 1);
            sk_asset_destroy(a);
        }
        buf[first[cases[c].acc] + width[cases[c].acc] * cases[c].elem + cases[c].comp] = cases[c].bad;
        char needle[96];
        snprintf(needle, sizeof needle, "/accessors/%u: element %u component %u is not finite", cases[c].acc,
                 cases[c].elem, cases[c].comp);
        expect_reject(doc, buf, sizeof buf, SK_ERR_INVALID_DATA, needle);
        checked++;
    }
    assert_int_equal(checked, 9);
}

static size_t make_glb(unsigned char *out, const char *json, const void *bin, size_t bin_len) {
    size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, bp = (bin_len + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jp + (bin ? 8 + bp : 0);
    uint32_t h[3] = {0x46546C67u, 2, (uint32_t)total};
    memcpy(out, h, 12);
    uint32_t ch[2] = {(uint32_t)jp, 0x4E4F534Au};
    memcpy(out + 12, ch, 8);
    memset(out + 20, ' ', jp);
    memcpy(out + 20, json, jl);
    if (bin) {
        uint32_t cb[2] = {(uint32_t)bp, 0x004E4942u};
        memcpy(out + 20 + jp, cb, 8);
        memset(out + 28 + jp, 0, bp);
        memcpy(out + 28 + jp, bin, bin_len);
    }
    return total;
}

static void test_glb(void **state) {
    (void)state;
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"name\":\"tri\",\"primitives\":[{\"attributes\":{\"POSITION\":0},\"mode\":0}]}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
    float p[3] = {1, 2, 3};
    unsigned char glb[1024];
    size_t n = make_glb(glb, json, p, 12);
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_memory(glb, n, NULL, NULL, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    assert_string_equal(a->meshes[0].name, "tri");
    near(a->meshes[0].primitives[0].positions[2], 3, 0);
    assert_int_equal(a->meshes[0].primitives[0].mode, 0);
    sk_asset_destroy(a);

    /* every truncation is rejected, never read past */
    for (size_t cut = 0; cut < n; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, glb, cut);
        a = NULL;
        r = sk_gltf_load_memory(copy, cut, NULL, NULL, &a, &err);
        assert_int_not_equal(r, SK_OK);
        assert_null(a);
        free(copy);
    }
    a = NULL;
    r = sk_gltf_load_memory(glb, n - 4, NULL, NULL, &a, &err);
    assert_int_equal(r, SK_ERR_PARSE);
    assert_non_null(strstr(err.message, "GLB"));
    /* BIN shorter than buffer 0 */
    n = make_glb(glb, json, p, 8);
    r = sk_gltf_load_memory(glb, n, NULL, NULL, &a, &err);
    assert_int_equal(r, SK_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "/buffers/0/byteLength"));
    /* unaligned chunk length, wrong version */
    n = make_glb(glb, json, p, 12);
    uint32_t odd = 13;
    memcpy(glb + 12, &odd, 4);
    assert_int_equal(sk_gltf_load_memory(glb, n, NULL, NULL, &a, &err), SK_ERR_PARSE);
    n = make_glb(glb, json, p, 12);
    uint32_t v3 = 3;
    memcpy(glb + 4, &v3, 4);
    assert_int_equal(sk_gltf_load_memory(glb, n, NULL, NULL, &a, &err), SK_ERR_UNSUPPORTED);
    /* random byte corruption never crashes */
    n = make_glb(glb, json, p, 12);
    unsigned seed = 12345;
    for (int iter = 0; iter < 2000; iter++) {
        unsigned char c[1024];
        memcpy(c, glb, n);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            c[(seed >> 8) % n] = (unsigned char)(seed >> 20);
        }
        a = NULL;
        if (sk_gltf_load_memory(c, n, NULL, NULL, &a, &err) == SK_OK) sk_asset_destroy(a);
    }
}

/* External .bin files next to a .gltf, percent-encoded names, refusals. */
static void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void test_external_files(void **state) {
    (void)state;
    char dir[] = "/tmp/sk_gltf_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512], gltf[512];
    float p[3] = {4, 5, 6};
    snprintf(path, sizeof path, "%s/my data.bin", dir);
    write_file(path, p, 12);
    const char *fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}";
    char json[2048];
    snprintf(gltf, sizeof gltf, "%s/model.gltf", dir);
    snprintf(json, sizeof json, fmt, "my%20data.bin");
    write_file(gltf, json, strlen(json));
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_file(gltf, NULL, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    near(a->meshes[0].primitives[0].positions[1], 5, 0);
    sk_asset_destroy(a);

    static const struct { const char *uri; sk_result code; const char *needle; } bad[] = {
        {"../my%20data.bin", SK_ERR_INVALID_DATA, "\"..\""},
        {"sub/%2E%2E/x.bin", SK_ERR_INVALID_DATA, "\"..\""},
        {"/etc/passwd", SK_ERR_INVALID_DATA, "absolute path"},
        {"%2Fetc%2Fpasswd", SK_ERR_INVALID_DATA, "absolute path"},
        {"missing.bin", SK_ERR_IO, "/buffers/0/uri"},
        {"bad%2", SK_ERR_INVALID_DATA, "percent"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(json, sizeof json, fmt, bad[i].uri);
        write_file(gltf, json, strlen(json));
        a = NULL;
        r = sk_gltf_load_file(gltf, NULL, &a, &err);
        if (r != bad[i].code || !strstr(err.message, bad[i].needle))
            fprintf(stderr, "uri %s: %s %s\n", bad[i].uri, sk_result_string(r), err.message);
        assert_int_equal(r, bad[i].code);
        assert_non_null(strstr(err.message, bad[i].needle));
        assert_null(a);
    }
    /* URLs are never fetched: the mesh reading from one is loaded empty and
     * says why; a clip reading from one is refused (it cannot be anything else) */
    static const char *const urls[] = {"http://example.com/a.bin", "file:///etc/passwd"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(json, sizeof json, fmt, urls[i]);
        write_file(gltf, json, strlen(json));
        a = NULL;
        assert_int_equal(sk_gltf_load_file(gltf, NULL, &a, &err), SK_OK);
        const sk_primitive *pr = &a->meshes[0].primitives[0];
        assert_int_equal(pr->vertex_count, 0);
        assert_null(pr->positions);
        assert_non_null(pr->missing_data);
        assert_non_null(strstr(pr->missing_data, "/meshes/0/primitives/0/attributes/POSITION: accessor 0 needs buffer 0"));
        assert_non_null(strstr(pr->missing_data, "not fetched"));
        sk_asset_destroy(a);
    }
    const char *anim_fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]}],"
        "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{},\"targets\":[{}]}]}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":0}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}]}]}";
    snprintf(json, sizeof json, anim_fmt, urls[0]);
    write_file(gltf, json, strlen(json));
    assert_int_equal(sk_gltf_load_file(gltf, NULL, &a, &err), SK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "/animations/0/samplers/0/input: accessor 0 needs buffer 0"));
    /* the size limit */
    snprintf(json, sizeof json, fmt, "my%20data.bin");
    write_file(gltf, json, strlen(json));
    sk_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.max_file_bytes = 64;
    assert_int_equal(sk_gltf_load_file(gltf, &opts, &a, &err), SK_ERR_LIMIT);
    assert_int_equal(sk_gltf_load_file("/nonexistent/x.gltf", NULL, &a, &err), SK_ERR_IO);
    /* the message names the file once, first (the CLI prints it as it is) */
    assert_true(strncmp(err.message, "/nonexistent/x.gltf: cannot open", 32) == 0);
    assert_null(strstr(err.message + 1, "/nonexistent/x.gltf"));
    const unsigned char corrupt[12] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 0xff, 0, 0, 0};
    write_file(gltf, corrupt, sizeof corrupt);
    assert_int_equal(sk_gltf_load_file(gltf, NULL, &a, &err), SK_ERR_PARSE);
    assert_true(strncmp(err.message, gltf, strlen(gltf)) == 0);
    assert_null(strstr(err.message + 1, gltf));
    assert_non_null(strstr(err.message, "GLB: header length 255 exceeds"));
    unlink(gltf);
    unlink(path);
    rmdir(dir);
}



/* ---- looks: images, samplers, textures, materials ------------------------------ */

/* A .glb's JSON (parsed with cJSON) and BIN chunk, read by the test itself:
 * the independent reference for what the loader keeps. */
typedef struct glb_parts {
    unsigned char *file;
    size_t size;
    cJSON *json;
    const unsigned char *bin;
    size_t bin_size;
} glb_parts;

static void glb_open(glb_parts *g, const char *path) {
    memset(g, 0, sizeof *g);
    g->file = (unsigned char *)sk_test_read_file(path, &g->size);
    assert_non_null(g->file);
    assert_true(g->size >= 28 && memcmp(g->file, "glTF", 4) == 0);
    uint32_t jl;
    memcpy(&jl, g->file + 12, 4);
    g->json = cJSON_ParseWithLength((const char *)g->file + 20, jl);
    assert_non_null(g->json);
    if (20 + (size_t)jl + 8 <= g->size) {
        uint32_t bl;
        memcpy(&bl, g->file + 20 + jl, 4);
        g->bin = g->file + 28 + jl;
        g->bin_size = bl;
    }
}

static void glb_close(glb_parts *g) {
    cJSON_Delete(g->json);
    free(g->file);
}

/* The bytes of bufferView v in the BIN chunk. */
static const unsigned char *glb_view(const glb_parts *g, int v, size_t *len) {
    const cJSON *view = cJSON_GetArrayItem(get(g->json, "bufferViews"), v);
    assert_non_null(view);
    const cJSON *off = get(view, "byteOffset");
    size_t o = cJSON_IsNumber(off) ? (size_t)off->valuedouble : 0;
    *len = (size_t)get(view, "byteLength")->valuedouble;
    assert_true(o + *len <= g->bin_size);
    return g->bin + o;
}

/* Everything the asset says about looks equals the file's JSON and bytes. */
static void check_looks_against_glb(const sk_asset *a, const glb_parts *g) {
    const cJSON *mats = get(g->json, "materials"), *texs = get(g->json, "textures"), *imgs = get(g->json, "images"),
                *smps = get(g->json, "samplers");
    assert_int_equal(a->material_count, cJSON_GetArraySize(mats));
    assert_int_equal(a->texture_count, cJSON_GetArraySize(texs));
    assert_int_equal(a->image_count, cJSON_GetArraySize(imgs));
    assert_int_equal(a->sampler_count, cJSON_GetArraySize(smps));
    for (uint32_t i = 0; i < a->material_count; i++) {
        const cJSON *pbr = get(cJSON_GetArrayItem(mats, (int)i), "pbrMetallicRoughness");
        const cJSON *f = get(pbr, "baseColorFactor"), *bt = get(pbr, "baseColorTexture");
        for (int k = 0; k < 4; k++) near(a->materials[i].base_color[k], f ? num(f, k) : 1.0, 0);
        assert_int_equal(a->materials[i].base_color_texture.texture, bt ? get(bt, "index")->valueint : -1);
        const cJSON *mf = get(pbr, "metallicFactor");
        near(a->materials[i].metallic, mf ? mf->valuedouble : 1.0, 1e-7);
    }
    for (uint32_t i = 0; i < a->texture_count; i++) {
        const cJSON *t = cJSON_GetArrayItem(texs, (int)i);
        assert_int_equal(a->textures[i].image, get(t, "source") ? get(t, "source")->valueint : -1);
        assert_int_equal(a->textures[i].sampler, get(t, "sampler") ? get(t, "sampler")->valueint : -1);
    }
    for (uint32_t i = 0; i < a->sampler_count; i++) {
        const cJSON *sm = cJSON_GetArrayItem(smps, (int)i);
        assert_int_equal(a->samplers[i].min_filter, get(sm, "minFilter") ? get(sm, "minFilter")->valueint : 0);
        assert_int_equal(a->samplers[i].mag_filter, get(sm, "magFilter") ? get(sm, "magFilter")->valueint : 0);
    }
    for (uint32_t i = 0; i < a->image_count; i++) {
        const cJSON *im = cJSON_GetArrayItem(imgs, (int)i);
        size_t len;
        const unsigned char *bytes = glb_view(g, get(im, "bufferView")->valueint, &len);
        assert_string_equal(a->images[i].mime_type, get(im, "mimeType")->valuestring);
        assert_int_equal(a->images[i].size, len);
        assert_memory_equal(a->images[i].data, bytes, len);
    }
}

/* CesiumMan: its material, texture, sampler and JPEG as the file has them;
 * written as .glb and loaded again, the same (decoded image bytes included). */
static void test_looks_cesium_man(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    char path[1024];
    snprintf(path, sizeof path, "%s/assets/gltf/CesiumMan/CesiumMan.glb", shared);
    glb_parts orig;
    glb_open(&orig, path);
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_file(path, NULL, &a, &err), SK_OK);
    check_looks_against_glb(a, &orig);
    assert_int_equal(a->image_count, 1);
    assert_true(a->images[0].size > 1000 && a->images[0].data[0] == 0xFF && a->images[0].data[1] == 0xD8);
    const sk_primitive *p = &a->meshes[0].primitives[0];
    assert_true(p->material >= 0 && p->texcoords);
    assert_memory_equal(p->base_color, a->materials[p->material].base_color, sizeof p->base_color);
    /* round trip */
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_OK);
    char out[1024];
    snprintf(out, sizeof out, "%s/cesium_roundtrip.glb", getenv("SK_BINARY_DIR") ? getenv("SK_BINARY_DIR") : "/tmp");
    write_file(out, data, size);
    free(data); /* the default allocator */
    sk_asset *b = NULL;
    assert_int_equal(sk_gltf_load_file(out, NULL, &b, &err), SK_OK);
    glb_parts written;
    glb_open(&written, out);
    check_looks_against_glb(b, &written); /* the written file says what the asset holds */
    assert_int_equal(b->material_count, a->material_count);
    assert_int_equal(b->texture_count, a->texture_count);
    assert_int_equal(b->image_count, a->image_count);
    for (uint32_t i = 0; i < a->material_count; i++) {
        const sk_material *ma = &a->materials[i], *mb = &b->materials[i];
        assert_memory_equal(ma->base_color, mb->base_color, sizeof ma->base_color);
        assert_int_equal(ma->base_color_texture.texture, mb->base_color_texture.texture);
        assert_true(ma->metallic == mb->metallic && ma->roughness == mb->roughness);
        assert_int_equal(ma->alpha_mode, mb->alpha_mode);
        assert_int_equal(ma->double_sided, mb->double_sided);
    }
    for (uint32_t i = 0; i < a->texture_count; i++) {
        assert_int_equal(a->textures[i].image, b->textures[i].image);
        assert_int_equal(a->textures[i].sampler, b->textures[i].sampler);
    }
    assert_memory_equal(&a->samplers[0].mag_filter, &b->samplers[0].mag_filter, 4 * sizeof(uint32_t));
    assert_string_equal(a->images[0].mime_type, b->images[0].mime_type);
    assert_int_equal(a->images[0].size, b->images[0].size);
    assert_memory_equal(a->images[0].data, b->images[0].data, a->images[0].size);
    assert_int_equal(b->meshes[0].primitives[0].material, p->material);
    glb_close(&written);
    glb_close(&orig);
    sk_asset_destroy(b);
    sk_asset_destroy(a);
}

/* AnimatedCube: two PNGs in files beside the .gltf (no mimeType in the
 * file); the asset holds the files' bytes; written as .glb they are
 * embedded, typed from their bytes, and come back the same. */
static void test_looks_external_images(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    char path[1024], png[1024];
    snprintf(path, sizeof path, "%s/assets/gltf/AnimatedCube/AnimatedCube.gltf", shared);
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_file(path, NULL, &a, &err), SK_OK);
    assert_int_equal(a->image_count, 2);
    static const char *const files[] = {"AnimatedCube_BaseColor.png", "AnimatedCube_MetallicRoughness.png"};
    for (int i = 0; i < 2; i++) {
        snprintf(png, sizeof png, "%s/assets/gltf/AnimatedCube/%s", shared, files[i]);
        size_t n = 0;
        char *bytes = sk_test_read_file(png, &n);
        assert_non_null(bytes);
        assert_string_equal(a->images[i].uri, files[i]);
        assert_string_equal(a->images[i].mime_type, "");
        assert_int_equal(a->images[i].size, n);
        assert_memory_equal(a->images[i].data, bytes, n);
        free(bytes);
    }
    assert_int_equal(a->materials[0].base_color_texture.texture, 0);
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_OK);
    sk_asset *b = NULL;
    assert_int_equal(sk_gltf_load_memory(data, size, NULL, NULL, &b, &err), SK_OK);
    free(data);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(b->images[i].mime_type, "image/png");
        assert_string_equal(b->images[i].uri, "");
        assert_int_equal(b->images[i].size, a->images[i].size);
        assert_memory_equal(b->images[i].data, a->images[i].data, a->images[i].size);
    }
    sk_asset_destroy(b);
    /* skip_image_data: what the file says, no bytes */
    sk_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_image_data = true;
    sk_asset_destroy(a);
    assert_int_equal(sk_gltf_load_file(path, &opts, &a, &err), SK_OK);
    assert_int_equal(a->image_count, 2);
    assert_null(a->images[0].data);
    assert_string_equal(a->images[0].uri, files[0]);
    sk_asset_destroy(a);
}

static void test_looks_handwritten(void **state) {
    (void)state;
    char dir[] = "/tmp/sk_gltf_looks_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char img[512], gltf[512];
    const unsigned char tex[] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3};
    snprintf(img, sizeof img, "%s/my tex.png", dir);
    write_file(img, tex, sizeof tex);
    snprintf(gltf, sizeof gltf, "%s/looks.gltf", dir);
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":8}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
        "\"images\":[{\"uri\":\"my%20tex.png\",\"name\":\"file\"},"
        "{\"uri\":\"data:image/png;base64,iVBORw0KGgo=\"},"
        "{\"uri\":\"https://example.com/t.png\"},"
        "{\"bufferView\":0,\"mimeType\":\"image/jpeg\"}],"
        "\"samplers\":[{\"magFilter\":9728,\"wrapS\":33071}],"
        "\"textures\":[{\"source\":0,\"sampler\":0},{\"source\":1},{\"source\":2},{\"source\":3},{}],"
        "\"materials\":[{\"name\":\"m\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.5,0.25,1,0.75],"
        "\"baseColorTexture\":{\"index\":1,\"texCoord\":0},\"metallicFactor\":0,\"roughnessFactor\":0.5},"
        "\"alphaMode\":\"MASK\",\"alphaCutoff\":0.3,\"doubleSided\":true},{}]}";
    write_file(gltf, json, strlen(json));
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_file(gltf, NULL, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    assert_int_equal(a->image_count, 4);
    /* a file named with a percent-encoded space */
    assert_string_equal(a->images[0].name, "file");
    assert_string_equal(a->images[0].uri, "my%20tex.png");
    assert_int_equal(a->images[0].size, sizeof tex);
    assert_memory_equal(a->images[0].data, tex, sizeof tex);
    /* a data: URI: its media type */
    assert_string_equal(a->images[1].mime_type, "image/png");
    assert_int_equal(a->images[1].size, 8);
    assert_memory_equal(a->images[1].data, tex, 8);
    /* a URL is kept, never fetched; a buffer without data gives no bytes */
    assert_string_equal(a->images[2].uri, "https://example.com/t.png");
    assert_null(a->images[2].data);
    assert_null(a->images[3].data);
    assert_string_equal(a->images[3].mime_type, "image/jpeg");
    assert_int_equal(a->samplers[0].mag_filter, 9728);
    assert_int_equal(a->samplers[0].min_filter, 0);
    assert_int_equal(a->samplers[0].wrap_s, 33071);
    assert_int_equal(a->samplers[0].wrap_t, 10497);
    assert_int_equal(a->textures[4].image, -1);
    assert_int_equal(a->textures[4].sampler, -1);
    const sk_material *m = &a->materials[0];
    assert_string_equal(m->name, "m");
    near(m->base_color[1], 0.25, 0);
    assert_int_equal(m->base_color_texture.texture, 1);
    near(m->metallic, 0, 0);
    near(m->roughness, 0.5, 0);
    assert_int_equal(m->alpha_mode, SK_ALPHA_MASK);
    near(m->alpha_cutoff, 0.3, 1e-7);
    assert_true(m->double_sided);
    m = &a->materials[1];
    near(m->base_color[0], 1, 0);
    assert_int_equal(m->base_color_texture.texture, -1);
    near(m->metallic, 1, 0);
    assert_int_equal(m->alpha_mode, SK_ALPHA_OPAQUE);
    near(m->alpha_cutoff, 0.5, 0);
    /* written: the embedded ones become bufferViews, the URL stays a uri, the
     * image without bytes is left out (its texture loses its source) */
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(sk_glb_write_memory(a, &data, &size, &err), SK_OK);
    sk_asset *b = NULL;
    assert_int_equal(sk_gltf_load_memory(data, size, NULL, NULL, &b, &err), SK_OK);
    free(data);
    assert_int_equal(b->image_count, 3);
    assert_string_equal(b->images[0].mime_type, "image/png"); /* recognised from the bytes */
    assert_memory_equal(b->images[0].data, tex, sizeof tex);
    assert_string_equal(b->images[2].uri, "https://example.com/t.png");
    assert_int_equal(b->textures[3].image, -1);
    assert_int_equal(b->textures[0].sampler, 0);
    assert_int_equal(b->samplers[0].wrap_s, 33071);
    m = &b->materials[0];
    assert_memory_equal(m->base_color, a->materials[0].base_color, sizeof m->base_color);
    assert_int_equal(m->alpha_mode, SK_ALPHA_MASK);
    near(m->alpha_cutoff, 0.3, 1e-7);
    assert_true(m->double_sided);
    assert_int_equal(m->base_color_texture.texture, 1);
    sk_asset_destroy(b);
    sk_asset_destroy(a);

    /* what we would read wrong is refused, by JSON path */
    static const struct { const char *json, *needle; } bad[] = {
        {"\"images\":[{\"bufferView\":0}]", "/images/0/mimeType: required with a bufferView"},
        {"\"images\":[{\"bufferView\":3,\"mimeType\":\"image/png\"}]", "/images/0/bufferView: bufferView index 3"},
        {"\"images\":[{}]", "/images/0: an image needs a uri or a bufferView"},
        {"\"images\":[{\"uri\":\"../x.png\"}]", "/images/0/uri: \"..\""},
        {"\"images\":[{\"uri\":\"missing.png\"}]", "/images/0/uri: "},
        {"\"textures\":[{\"source\":0}]", "/textures/0/source: image index 0 out of range"},
        {"\"textures\":[{\"sampler\":2}]", "/textures/0/sampler: sampler index 2 out of range"},
        {"\"samplers\":[{\"wrapS\":1}]", "/samplers/0/wrapS: 1 is not a valid value"},
        {"\"materials\":[{\"alphaMode\":\"CUTOUT\"}]", "/materials/0/alphaMode"},
        {"\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}]",
         "/materials/0/pbrMetallicRoughness/baseColorTexture/index: texture index 0 out of range"},
        {"\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1]}}]",
         "/materials/0/pbrMetallicRoughness/baseColorFactor: expected 4 numbers"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"data:application/"
                 "octet-stream;base64,AAAAAAAAAAA=\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8,"
                 "\"byteStride\":4}],%s}",
                 bad[i].json);
        write_file(gltf, doc, strlen(doc));
        a = NULL;
        r = sk_gltf_load_file(gltf, NULL, &a, &err);
        if (r == SK_OK || !strstr(err.message, bad[i].needle))
            fprintf(stderr, "case %zu: %s: %s\n", i, sk_result_string(r), err.message);
        assert_int_not_equal(r, SK_OK);
        assert_null(a);
        assert_non_null(strstr(err.message, bad[i].needle));
    }
    /* image data in a strided view (vertex data, not an image) */
    const char *strided = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"data:application/"
                          "octet-stream;base64,AAAAAAAAAAA=\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8,"
                          "\"byteStride\":4}],\"images\":[{\"bufferView\":0,\"mimeType\":\"image/png\"}]}";
    expect_reject(strided, NULL, 0, SK_ERR_INVALID_DATA, "/images/0/bufferView: bufferView 0 has a byteStride");
    unlink(gltf);
    unlink(img);
    rmdir(dir);
}


/* ---- what the validator accepts loads ------------------------------------------ */

/* Objects we never use cannot make a valid file fail, and data that is not
 * in the file leaves the rest usable: a primitive whose buffer has no data is
 * loaded empty and says why, used by a node or not. */
static void test_valid_files_load(void **state) {
    (void)state;
    float data[2 + 6] = {0, 1, 0, 1, 2, 3, 4, 5}; /* key times 0, 1; translations (0,1,2), (3,4,5) */
    const char *doc =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":648},{\"byteLength\":32,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":576},{\"buffer\":1,\"byteLength\":8},"
        "{\"buffer\":1,\"byteOffset\":8,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":24,\"type\":\"VEC3\"},"
        "{\"componentType\":5123,\"count\":24,\"type\":\"VEC4\"},{\"componentType\":5126,\"count\":24,\"type\":\"VEC4\"},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
        "{\"componentType\":5130,\"count\":3,\"type\":\"VEC3\"},"         /* 5: a component type we do not know */
        "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC5\"}]," /* 6: a type we do not know */
        "\"meshes\":[{\"name\":\"used\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]},"
        "{\"name\":\"unused\",\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"skins\":[{\"joints\":[0]}],"
        "\"nodes\":[{\"name\":\"root\",\"children\":[2]},{\"name\":\"body\",\"mesh\":0,\"skin\":0},{\"name\":\"tip\"}],"
        "\"scenes\":[{\"nodes\":[0,1]}],"
        "\"animations\":[{\"name\":\"move\",\"samplers\":[{\"input\":3,\"output\":4}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}}]}]}";
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = load_bin(doc, data, sizeof data, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    for (uint32_t m = 0; m < 2; m++) {
        const sk_primitive *p = &a->meshes[m].primitives[0];
        assert_int_equal(p->vertex_count, 0);
        assert_int_equal(p->index_count, 0);
        assert_null(p->positions);
        assert_null(p->joints);
        assert_non_null(p->missing_data);
        assert_non_null(strstr(p->missing_data, "accessor 0 needs buffer 0, which has no data: it has no uri"));
    }
    assert_int_equal(a->joint_mesh[joint_of(a, 1)], 0);
    assert_int_equal(a->joint_skin[joint_of(a, 1)], 0);
    assert_int_equal(a->skins[0].joint_count, 1);
    assert_int_equal(a->clip_count, 1);
    assert_int_equal(sk_clip_track_count(a->clips[0]), 1);
    assert_int_equal(sk_asset_validate(a, &err), SK_OK);
    /* the rest animates as usual */
    sk_transform local[3];
    sk_pose pose = {local, NULL, 3, 0};
    assert_int_equal(sk_clip_sample(a->clips[0], a->skeleton, 0.5, SK_LOOP_CLAMP, &pose, NULL), SK_OK);
    near(local[joint_of(a, 2)].t.x, 1.5, 1e-6);
    /* written: the meshes without vertices are left out, the rest is kept */
    void *out = NULL;
    size_t size = 0;
    assert_int_equal(sk_glb_write_memory(a, &out, &size, &err), SK_OK);
    sk_asset *b = NULL;
    assert_int_equal(sk_gltf_load_memory(out, size, NULL, NULL, &b, &err), SK_OK);
    free(out);
    assert_int_equal(b->node_count, 3);
    assert_int_equal(b->mesh_count, 0);
    assert_int_equal(b->joint_mesh[joint_of(b, 1)], -1);
    assert_int_equal(b->skin_count, 1);
    assert_int_equal(b->clip_count, 1);
    sk_asset_destroy(b);
    sk_asset_destroy(a);

    /* accessors of unknown types are refused only when read, with their path */
    char bad[4096];
    const char *used5 = strstr(doc, "\"meshes\":[{\"name\":\"used\"");
    assert_non_null(used5);
    snprintf(bad, sizeof bad, "%.*s\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":5}}]}]}",
             (int)(used5 - doc), doc);
    expect_reject(bad, data, sizeof data, SK_ERR_INVALID_DATA,
                  "/meshes/0/primitives/0/attributes/POSITION: accessor 5 cannot be read: /accessors/5/componentType: "
                  "5130 is not a glTF component type");
    snprintf(bad, sizeof bad, "%.*s\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":6}}]}]}",
             (int)(used5 - doc), doc);
    expect_reject(bad, data, sizeof data, SK_ERR_INVALID_DATA,
                  "accessor 6 cannot be read: /accessors/6/type: \"VEC5\" is not a glTF accessor type");
    /* a file that needs a later glTF stays refused */
    expect_reject("{\"asset\":{\"version\":\"2.1\",\"minVersion\":\"2.1\"}}", NULL, 0, SK_ERR_UNSUPPORTED,
                  "/asset/minVersion: glTF 2.1 features are not supported");
    expect_reject("{\"asset\":{\"version\":\"3.0\"}}", NULL, 0, SK_ERR_UNSUPPORTED, "/asset/version");

    /* the corpus case this is about */
    const char *shared = sk_test_shared_dir();
    if (!shared) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/assets/validator/base/root/named_objects/named_objects.gltf", shared);
    assert_int_equal(sk_gltf_load_file(path, NULL, &a, &err), SK_OK);
    assert_string_equal(a->meshes[0].name, "Mesh name");
    assert_non_null(a->meshes[0].primitives[0].missing_data);
    assert_string_equal(a->materials[0].name, "Material name");
    assert_string_equal(a->images[0].mime_type, "image/png");
    assert_int_equal(a->images[0].size, 69); /* the 1x1 PNG of its data: URI (69 bytes, per Python base64) */
    assert_int_equal(a->clip_count, 1);
    sk_asset_destroy(a);
}

/* ---- a buffer without uri that is not the BIN chunk ------------------------------ */

/* What reads the placeholder buffer (buffer 1: no uri, no data behind it). */
typedef enum ph_use { PH_UNUSED, PH_PRIMITIVE, PH_SPARSE, PH_SAMPLER, PH_SKIN, PH_IMAGE } ph_use;

/* Buffer 0 (the BIN chunk of a .glb, a data: URI in a .gltf): key times 0
 * and 1 (view 0), two translations (view 1), three positions (view 2), an
 * identity inverse bind (view 3); buffer 1 (view 4) has no uri. Accessors 0
 * to 3 read buffer 0; 4 (VEC3, 2) and 5 (MAT4, 1) read buffer 1, and 6 is
 * positions with one sparse value there. */
static void ph_document(char *out, size_t cap, ph_use use, bool glb) {
    snprintf(out, cap,
             "{\"asset\":{\"version\":\"2.0\"},"
             "\"buffers\":[{\"byteLength\":132%s},{\"byteLength\":64}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24},"
             "{\"buffer\":0,\"byteOffset\":32,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":68,\"byteLength\":64},"
             "{\"buffer\":1,\"byteLength\":64}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],"
             "\"max\":[1]},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
             "\"indices\":{\"bufferView\":4,\"componentType\":5121},\"values\":{\"bufferView\":4,\"byteOffset\":4}}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":2},\"mode\":0}]},"
             "{\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"mode\":0}]}],"
             "\"skins\":[{\"joints\":[1],\"inverseBindMatrices\":%d}],"
             "\"nodes\":[{\"mesh\":0,\"children\":[1]},{\"mesh\":1}],\"scenes\":[{\"nodes\":[0]}],"
             "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":%d}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}]%s}",
             glb ? "" : ",\"uri\":\"@URI@\"", use == PH_PRIMITIVE ? 4 : use == PH_SPARSE ? 6 : 2,
             use == PH_SKIN ? 5 : 3, use == PH_SAMPLER ? 4 : 1,
             use == PH_IMAGE ? ",\"images\":[{\"bufferView\":4,\"mimeType\":\"image/png\"}]" : "");
}

static void ph_warn(void *user, const char *message) {
    char *log = user;
    size_t n = strlen(log);
    snprintf(log + n, 1024 - n, "%s\n", message);
}

/* The same document as a .glb (buffer 0 the BIN chunk) or a .gltf. */
static sk_result ph_load(ph_use use, bool glb, sk_asset **out, sk_error *err, char *log) {
    float bin[33] = {0, 1, 0, 1, 2, 3, 4, 5, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int k = 0; k < 16; k++) bin[17 + k] = k % 5 == 0 ? 1.0f : 0.0f; /* identity, column-major */
    char doc[4096];
    ph_document(doc, sizeof doc, use, glb);
    sk_gltf_options o;
    memset(&o, 0, sizeof o);
    o.warning = ph_warn;
    o.warning_user = log;
    log[0] = 0;
    if (glb) {
        unsigned char file[4096];
        size_t n = make_glb(file, doc, bin, sizeof bin);
        return sk_gltf_load_memory(file, n, NULL, &o, out, err);
    }
    char *j = with_uri(doc, bin, sizeof bin);
    sk_result r = sk_gltf_load_memory(j, strlen(j), NULL, &o, out, err);
    free(j);
    return r;
}

/* A buffer without uri that is not a .glb's BIN chunk (in a .glb, any but
 * buffer 0; in a .gltf, every one) has no data; glTF-Validator accepts such
 * a file. Unused, it changes nothing; a primitive reading it is loaded empty
 * and says why; an image reading it has no data and a warning says why; key
 * times and values or inverse binds reading it are refused with the JSON
 * path. The .glb and the .gltf behave alike (only the reason differs). */
static void test_placeholder_buffer(void **state) {
    (void)state;
    static const char *const why[2] = {"it has no uri (and a .gltf file has no GLB BIN chunk)",
                                       "it has no uri (and only buffer 0 of a .glb can be its BIN chunk)"};
    char log[1024], want[512];
    for (int glb = 0; glb < 2; glb++) {
        sk_asset *a = NULL;
        sk_error err = {0};
        /* unused: everything from buffer 0 loads as usual */
        sk_result r = ph_load(PH_UNUSED, glb, &a, &err, log);
        if (r) fprintf(stderr, "%s\n", err.message);
        assert_int_equal(r, SK_OK);
        assert_string_equal(log, "");
        for (uint32_t m = 0; m < 2; m++) {
            const sk_primitive *p = &a->meshes[m].primitives[0];
            assert_null(p->missing_data);
            assert_int_equal(p->vertex_count, 3);
            near(p->positions[4], 1, 0);
        }
        assert_int_equal(a->skins[0].joint_count, 1);
        near(a->skins[0].inverse_bind[0].m[15], 1, 0);
        sk_transform local[2];
        sk_pose pose = {local, NULL, 2, 0};
        assert_int_equal(sk_clip_sample(a->clips[0], a->skeleton, 0.5, SK_LOOP_CLAMP, &pose, NULL), SK_OK);
        near(local[joint_of(a, 1)].t.x, 1.5, 1e-6);
        assert_int_equal(sk_asset_validate(a, &err), SK_OK);
        sk_asset_destroy(a);

        /* a primitive reading it, directly or through sparse values: loaded empty, saying why */
        for (int sparse = 0; sparse < 2; sparse++) {
            a = NULL;
            r = ph_load(sparse ? PH_SPARSE : PH_PRIMITIVE, glb, &a, &err, log);
            if (r) fprintf(stderr, "%s\n", err.message);
            assert_int_equal(r, SK_OK);
            const sk_primitive *p = &a->meshes[1].primitives[0];
            assert_int_equal(p->vertex_count, 0);
            assert_null(p->positions);
            assert_non_null(p->missing_data);
            snprintf(want, sizeof want,
                     "/meshes/1/primitives/0/attributes/POSITION: accessor %d needs buffer 1, which has no data: %s",
                     sparse ? 6 : 4, why[glb]);
            assert_string_equal(p->missing_data, want);
            assert_null(a->meshes[0].primitives[0].missing_data);
            assert_int_equal(a->meshes[0].primitives[0].vertex_count, 3);
            assert_int_equal(a->clip_count, 1);
            assert_int_equal(sk_asset_validate(a, &err), SK_OK);
            sk_asset_destroy(a);
        }

        /* an image in it: no data, and a warning says why */
        a = NULL;
        r = ph_load(PH_IMAGE, glb, &a, &err, log);
        assert_int_equal(r, SK_OK);
        assert_int_equal(a->image_count, 1);
        assert_null(a->images[0].data);
        assert_int_equal(a->images[0].size, 0);
        assert_string_equal(a->images[0].mime_type, "image/png");
        snprintf(want, sizeof want, "/images/0/bufferView: bufferView 4 is in buffer 1, which has no data: %s: the "
                 "image has no data\n", why[glb]);
        assert_string_equal(log, want);
        sk_asset_destroy(a);

        /* key values or inverse binds in it: refused, with the JSON path and the reason */
        a = (sk_asset *)1;
        r = ph_load(PH_SAMPLER, glb, &a, &err, log);
        assert_int_equal(r, SK_ERR_INVALID_DATA);
        assert_null(a);
        snprintf(want, sizeof want, "/animations/0/samplers/0/output: accessor 4 needs buffer 1, which has no data: %s",
                 why[glb]);
        assert_string_equal(err.message, want);
        a = (sk_asset *)1;
        r = ph_load(PH_SKIN, glb, &a, &err, log);
        assert_int_equal(r, SK_ERR_INVALID_DATA);
        assert_null(a);
        snprintf(want, sizeof want, "/skins/0/inverseBindMatrices: accessor 5 needs buffer 1, which has no data: %s",
                 why[glb]);
        assert_string_equal(err.message, want);
    }

    /* buffer 0 of a .glb without uri is its BIN chunk, which must be there */
    char doc[4096];
    ph_document(doc, sizeof doc, PH_UNUSED, true);
    unsigned char file[4096];
    size_t n = make_glb(file, doc, NULL, 0);
    sk_asset *a = (sk_asset *)1;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_memory(file, n, NULL, NULL, &a, &err), SK_ERR_INVALID_DATA);
    assert_null(a);
    assert_string_equal(err.message, "/buffers/0: buffer has no uri and there is no GLB BIN chunk for it");
}

/* ---- file-system callbacks (skelanim/io/file.h) ----------------------------- */

/* An in-memory "archive" served through sk_file_io: nothing touches the disk. */
typedef struct vfs_file {
    const char *path;
    const void *data;
    size_t size;
} vfs_file;
typedef struct vfs {
    vfs_file files[4];
    size_t count;
    int reads, releases, writes;
    char asked[4][256];
    unsigned char *written;
    size_t written_size;
} vfs;

static sk_result vfs_read(void *user, const char *path, uint64_t max, const sk_allocator *alloc, void **data,
                          size_t *size, sk_error *err) {
    vfs *v = user;
    if (v->reads < 4) snprintf(v->asked[v->reads], sizeof v->asked[0], "%s", path);
    v->reads++;
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->files[i].path, path) == 0) {
            if (v->files[i].size > max) return sk_error_set(err, SK_ERR_LIMIT, "%s: too large", path);
            void *p = sk_alloc(alloc, v->files[i].size ? v->files[i].size : 1);
            if (!p) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            memcpy(p, v->files[i].data, v->files[i].size);
            *data = p;
            *size = v->files[i].size;
            return SK_OK;
        }
    return sk_error_set(err, SK_ERR_IO, "%s: not in the archive", path);
}
static void vfs_release(void *user, const sk_allocator *alloc, void *data, size_t size) {
    ((vfs *)user)->releases++;
    sk_free(alloc, data, size ? size : 1);
}
static sk_result vfs_write(void *user, const char *path, const void *data, size_t size, sk_error *err) {
    vfs *v = user;
    (void)err;
    v->writes++;
    snprintf(v->asked[0], sizeof v->asked[0], "%s", path);
    free(v->written);
    v->written = malloc(size);
    memcpy(v->written, data, size);
    v->written_size = size;
    return SK_OK;
}

typedef struct counting counting;
static void *c_alloc(void *u, size_t n);
static void c_free(void *u, void *p, size_t n);
struct counting { size_t live, calls; size_t fail_at; };

static void test_file_callbacks(void **state) {
    (void)state;
    float p[3] = {4, 5, 6};
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"sub/my%20data.bin\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";
    vfs v;
    memset(&v, 0, sizeof v);
    v.files[0] = (vfs_file){"pack/model.gltf", json, strlen(json)};
    v.files[1] = (vfs_file){"pack/sub/my data.bin", p, sizeof p};
    v.count = 2;
    counting c = {0, 0, 0};
    sk_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.allocator.alloc = c_alloc;
    opts.allocator.free = c_free;
    opts.allocator.user = &c;
    opts.file_io.read = vfs_read;
    opts.file_io.release = vfs_release;
    opts.file_io.write = vfs_write;
    opts.file_io.user = &v;
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_file("pack/model.gltf", &opts, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    near(a->meshes[0].primitives[0].positions[2], 6, 0);
    /* the file, then its buffer (folder + percent-decoded URI); both released */
    assert_int_equal(v.reads, 2);
    assert_string_equal(v.asked[0], "pack/model.gltf");
    assert_string_equal(v.asked[1], "pack/sub/my data.bin");
    assert_int_equal(v.releases, 2);
    /* the writer writes through the callback; same bytes as in memory */
    assert_int_equal(sk_glb_write_file(a, "out/model.glb", &opts.file_io, &err), SK_OK);
    assert_int_equal(v.writes, 1);
    assert_string_equal(v.asked[0], "out/model.glb");
    void *mem = NULL;
    size_t mem_size = 0;
    assert_int_equal(sk_glb_write_memory(a, &mem, &mem_size, &err), SK_OK);
    assert_int_equal(mem_size, v.written_size);
    assert_memory_equal(mem, v.written, mem_size);
    sk_free(&opts.allocator, mem, mem_size);
    sk_asset_destroy(a);
    assert_int_equal(c.live, 0); /* the callback's memory came from the options' allocator */
    /* a missing file: the callback's message, after the JSON path, naming the model once */
    v.count = 1;
    v.reads = v.releases = 0;
    r = sk_gltf_load_file("pack/model.gltf", &opts, &a, &err);
    assert_int_equal(r, SK_ERR_IO);
    assert_null(a);
    assert_string_equal(err.message, "pack/model.gltf: /buffers/0/uri: pack/sub/my data.bin: not in the archive");
    assert_int_equal(v.releases, v.reads - 1); /* the failed read returned nothing to release */
    r = sk_gltf_load_file("pack/other.gltf", &opts, &a, &err);
    assert_int_equal(r, SK_ERR_IO);
    assert_string_equal(err.message, "pack/other.gltf: not in the archive");
    assert_int_equal(c.live, 0);
    free(v.written);
    /* state machines read through it too */
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    const char *graph = "{\"parameters\":[],\"machine\":{\"initial\":\"idle\",\"states\":[{\"name\":\"idle\",\"clip\":\"idle\"}]}}";
    v.files[0] = (vfs_file){"g/idle.json", graph, strlen(graph)};
    v.count = 1;
    v.reads = v.releases = 0;
    sk_graph *g = NULL;
    assert_int_equal(sk_graph_load_file("g/idle.json", m->skeleton, m->clips, m->clip_count, &opts.allocator,
                                        &opts.file_io, &g, &err), SK_OK);
    assert_int_equal(v.reads, 1);
    assert_int_equal(v.releases, 1);
    sk_graph_destroy(g);
    assert_int_equal(sk_graph_load_file("g/missing.json", m->skeleton, m->clips, m->clip_count, NULL, &opts.file_io,
                                        &g, &err), SK_ERR_IO);
    assert_string_equal(err.message, "g/missing.json: not in the archive");
    sk_asset_destroy(m);
    assert_int_equal(c.live, 0);
}

/* The default implementation reads regular files only: a FIFO (whose open
 * would wait for a writer) or a directory is refused at once, by name. */
static void test_special_files(void **state) {
    (void)state;
    char dir[] = "/tmp/sk_gltf_special_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[512], sub[512], gltf[512];
    snprintf(fifo, sizeof fifo, "%s/fifo.bin", dir);
    snprintf(sub, sizeof sub, "%s/dir.bin", dir);
    snprintf(gltf, sizeof gltf, "%s/model.gltf", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    alarm(20); /* a hang would be the bug: fail instead of waiting for ctest's timeout */
    static const struct { const char *uri, *needle; } cases[] = {
        {"fifo.bin", "fifo.bin: is a FIFO, not a regular file"},
        {"dir.bin", "dir.bin: is a directory, not a regular file"},
    };
    for (size_t i = 0; i < 2; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"%s\"}]}", cases[i].uri);
        write_file(gltf, json, strlen(json));
        sk_asset *a = NULL;
        sk_error err = {0};
        assert_int_equal(sk_gltf_load_file(gltf, NULL, &a, &err), SK_ERR_IO);
        assert_null(a);
        if (!strstr(err.message, cases[i].needle) || !strstr(err.message, "/buffers/0/uri"))
            fprintf(stderr, "%s\n", err.message);
        assert_non_null(strstr(err.message, cases[i].needle));
        assert_non_null(strstr(err.message, "/buffers/0/uri"));
    }
    /* the same as the file itself */
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_file(fifo, NULL, &a, &err), SK_ERR_IO);
    assert_non_null(strstr(err.message, "is a FIFO"));
    assert_int_equal(sk_gltf_load_file(sub, NULL, &a, &err), SK_ERR_IO);
    assert_non_null(strstr(err.message, "is a directory"));
    alarm(0);
    unlink(gltf);
    unlink(fifo);
    rmdir(sub);
    rmdir(dir);
}

/* Every JSON reader's document comes from the sk_allocator (their failures
 * are test_alloc_failure's): with every cJSON allocation failing, the glTF
 * reader, the state-machine loader and the motion-analysis loader still
 * load (none of them uses cJSON). When the sk_allocator runs out while the
 * JSON is read, the loaders say so (and not "syntax error"). cJSON's hooks
 * are process-wide: only this test sets them, and it restores them before
 * it asserts. */
static long cjson_budget;
static void *cjson_failing_malloc(size_t n) { return cjson_budget-- > 0 ? malloc(n) : NULL; }

/* An sk_allocator that gives `budget` allocations, then none. */
static void *budget_alloc(void *user, size_t n) {
    long *budget = user;
    return (*budget)-- > 0 ? malloc(n) : NULL;
}
static void budget_free(void *user, void *p, size_t n) {
    (void)user, (void)n;
    free(p);
}

static void test_json_out_of_memory(void **state) {
    (void)state;
    const char *json =
        "{\"asset\":{\"version\":\"2.0\",\"generator\":\"x\"},\"nodes\":[{\"name\":\"a\",\"children\":[1]},"
        "{\"name\":\"b\"}],\"scenes\":[{\"nodes\":[0]}]}";
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    const char *graph = "{\"parameters\":[{\"name\":\"speed\",\"type\":\"float\"}],"
                        "\"machine\":{\"initial\":\"idle\",\"states\":[{\"name\":\"idle\",\"clip\":\"idle\"}]}}";
    const char *analysis = "{\"format\": 1}"; /* read (then refused for its content) */
    cJSON_Hooks hooks = {cjson_failing_malloc, free};
    cJSON_InitHooks(&hooks);
    cjson_budget = 0;
    sk_asset *a = NULL;
    sk_graph *g = NULL;
    sk_motion_analysis *an = NULL;
    sk_error e = {0}, err = {0}, aerr = {0};
    sk_result ra = load_str(json, &a, &e);
    sk_result rg = sk_graph_load_json(graph, strlen(graph), m->skeleton, m->clips, m->clip_count, NULL, &g, &err);
    sk_result rn = sk_motion_analysis_from_json(analysis, strlen(analysis), NULL, &an, &aerr);
    cJSON_InitHooks(NULL);
    assert_int_equal(ra, SK_OK);
    assert_int_equal(a->node_count, 2);
    sk_asset_destroy(a);
    assert_int_equal(rg, SK_OK);
    sk_graph_destroy(g);
    assert_int_equal(rn, SK_ERR_INVALID_DATA);
    assert_string_equal(aerr.message, "/format: expected \"skelanim-motion-analysis\"");
    /* the sk_allocator runs out while the JSON is read: the state-machine
     * loader's first allocation is its graph, the next one the document's */
    long budget = 1;
    sk_allocator lean = {budget_alloc, NULL, budget_free, &budget};
    assert_int_equal(sk_graph_load_json(graph, strlen(graph), m->skeleton, m->clips, m->clip_count, &lean, &g, &err),
                     SK_ERR_OUT_OF_MEMORY);
    assert_null(g);
    assert_string_equal(err.message, "out of memory building the JSON parse tree");
    budget = 0;
    assert_int_equal(sk_motion_analysis_from_json(analysis, strlen(analysis), &lean, &an, &aerr), SK_ERR_OUT_OF_MEMORY);
    assert_null(an);
    assert_string_equal(aerr.message, "out of memory building the JSON parse tree");
    sk_asset_destroy(m);
    printf("cJSON out of memory: no reader of the library uses it; the loaders report their own allocator's\n");
}

/* The checker behind the readers' syntax errors: what it accepts, cJSON
 * accepts, checked on hand-picked cases and on random corruptions of a
 * document; and its limits are cJSON's. */
static void test_json_checker(void **state) {
    (void)state;
    static const struct { const char *text; sk_result want; size_t at; } cases[] = {
        {"{}", SK_OK, 0},
        {" [1, -2.5e+3, 0, true, false, null, \"a\\u00e9\\ud83d\\ude00\\n\"] ", SK_OK, 0},
        {"{\"a\":{\"b\":[]}}", SK_OK, 0},
        {"", SK_ERR_PARSE, 0},
        {"{\"a\":1,}", SK_ERR_PARSE, 7},
        {"[01]", SK_ERR_PARSE, 2},
        {"[1.]", SK_ERR_PARSE, 3},
        {"[\"\\ud800\"]", SK_ERR_PARSE, 2},
        {"[\"\\udc00\"]", SK_ERR_PARSE, 2},
        {"[\"\\x\"]", SK_ERR_PARSE, 2},
        {"[\"a\nb\"]", SK_ERR_PARSE, 3},
        {"{\"a\" 1}", SK_ERR_PARSE, 5},
        {"[tru]", SK_ERR_PARSE, 1},
        {"{} x", SK_ERR_PARSE, 3},
        {"[1 2]", SK_ERR_PARSE, 3},
        {"[0.0000000000000000000000000000000000000000000000000000000000000001]", SK_ERR_LIMIT, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t at = 0;
        const char *what = "";
        sk_result r = sk_json_check(cases[i].text, strlen(cases[i].text), &at, &what);
        if (r != cases[i].want || (r != SK_OK && at != cases[i].at))
            fprintf(stderr, "case %zu '%s': %s at %zu (%s)\n", i, cases[i].text, sk_result_string(r), at, what);
        assert_int_equal(r, cases[i].want);
        if (r != SK_OK) assert_int_equal(at, cases[i].at);
    }
    /* nesting: 1000 levels are cJSON's limit */
    char deep[2004];
    for (int depth = 1000; depth <= 1001; depth++) {
        memset(deep, '[', (size_t)depth);
        memset(deep + depth, ']', (size_t)depth);
        cJSON *t = cJSON_ParseWithLength(deep, (size_t)depth * 2);
        sk_result r = sk_json_check(deep, (size_t)depth * 2, NULL, NULL);
        assert_int_equal(r, depth == 1000 ? SK_OK : SK_ERR_LIMIT);
        assert_int_equal(t != NULL, r == SK_OK);
        cJSON_Delete(t);
    }
    /* random corruptions: accepted by the checker => parsed by cJSON */
    const char *doc = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\\u00e9\",\"translation\":[1.5,-2e3,0]},"
                      "{\"children\":[0],\"extras\":{\"x\":null,\"y\":[true,false]}}]}";
    size_t n = strlen(doc);
    const char alphabet[] = "{}[],:\"\\u0123456789.eE+-tfn ad";
    unsigned seed = 777;
    int accepted = 0;
    char buf[256];
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, doc, n);
        for (int k = 0; k < 1 + iter % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            buf[(seed >> 8) % n] = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
        }
        if (sk_json_check(buf, n, NULL, NULL) != SK_OK) continue;
        accepted++;
        const char *end = NULL;
        cJSON *t = cJSON_ParseWithLengthOpts(buf, n, &end, false);
        if (!t) fprintf(stderr, "accepted but cJSON refuses: %.*s\n", (int)n, buf);
        assert_non_null(t);
        cJSON_Delete(t);
    }
    printf("JSON checker: %d of 20000 corrupted documents still well-formed, all parsed by cJSON\n", accepted);
    assert_true(accepted > 100);
}

/* The writer's memory (JSON text included) comes from the asset's allocator:
 * a failure at any allocation is an error and leaks nothing. */
static void test_writer_allocator(void **state) {
    (void)state;
    float data[8] = {0, 1, 1, 2, 3, 4, 5, 6};
    const char *doc =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":32,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"name\":\"m\",\"primitives\":[{\"attributes\":{\"POSITION\":1}}]}],"
        "\"nodes\":[{\"name\":\"a \\\"quoted\\\"\",\"children\":[1],\"mesh\":0},{\"name\":\"b\"}],"
        "\"scenes\":[{\"nodes\":[0]}],"
        "\"animations\":[{\"name\":\"x\",\"samplers\":[{\"input\":0,\"output\":1}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}]}";
    char *json = with_uri(doc, data, sizeof data);
    counting c = {0, 0, 0};
    sk_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.allocator.alloc = c_alloc;
    opts.allocator.free = c_free;
    opts.allocator.user = &c;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_gltf_load_memory(json, strlen(json), NULL, &opts, &a, &err), SK_OK);
    free(json);
    size_t live = c.live;
    bool succeeded = false;
    for (size_t k = 1; k < 400 && !succeeded; k++) {
        c.calls = 0;
        c.fail_at = k;
        void *out = NULL;
        size_t size = 0;
        sk_result r = sk_glb_write_memory(a, &out, &size, &err);
        c.fail_at = 0;
        if (r == SK_OK) {
            succeeded = true;
            /* and it reads back: names with quotes survive the JSON writer */
            sk_asset *b = NULL;
            assert_int_equal(sk_gltf_load_memory(out, size, NULL, NULL, &b, &err), SK_OK);
            assert_string_equal(b->skeleton->names[b->node_to_joint[0]], "a \"quoted\"");
            assert_int_equal(b->clip_count, 1);
            sk_asset_destroy(b);
            sk_free(&opts.allocator, out, size);
        } else {
            assert_int_equal(r, SK_ERR_OUT_OF_MEMORY);
            assert_null(out);
        }
        assert_int_equal(c.live, live);
    }
    assert_true(succeeded);
    sk_asset_destroy(a);
    assert_int_equal(c.live, 0);
}

/* Every byte goes through the caller's allocator and comes back, on success
 * and on failure. */
static void *c_alloc(void *u, size_t n) {
    counting *c = u;
    if (c->fail_at && ++c->calls >= c->fail_at) return NULL;
    void *p = malloc(n);
    if (p) c->live++;
    return p;
}
static void c_free(void *u, void *p, size_t n) {
    counting *c = u;
    (void)n;
    c->live--; /* blocks, not bytes: leaks are what matters here */
    free(p);
}

static void test_allocator(void **state) {
    (void)state;
    float data[8] = {0, 1, 1, 2, 3, 4, 5, 6};
    const char *doc =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":32,\"uri\":\"@URI@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"name\":\"m\",\"primitives\":[{\"attributes\":{\"POSITION\":1},\"targets\":[{\"POSITION\":1}]}]}],"
        "\"skins\":[{\"joints\":[1]}],"
        "\"nodes\":[{\"name\":\"a\",\"children\":[1],\"mesh\":0},{\"name\":\"b\"}],"
        "\"scenes\":[{\"nodes\":[0]}],"
        "\"animations\":[{\"name\":\"x\",\"samplers\":[{\"input\":0,\"output\":1}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}]}";
    char *json = with_uri(doc, data, sizeof data);
    counting c = {0, 0, 0};
    sk_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.allocator.alloc = c_alloc;
    opts.allocator.free = c_free;
    opts.allocator.user = &c;
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_memory(json, strlen(json), NULL, &opts, &a, &err);
    if (r) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    assert_int_equal(a->clip_count, 1);
    assert_true(c.live > 0);
    sk_asset_destroy(a);
    assert_int_equal(c.live, 0);
    /* failing allocations at every point: an error, nothing leaked */
    bool succeeded = false;
    for (size_t k = 1; k < 500 && !succeeded; k++) {
        c.calls = 0;
        c.fail_at = k;
        a = NULL;
        r = sk_gltf_load_memory(json, strlen(json), NULL, &opts, &a, &err);
        if (r == SK_OK) {
            succeeded = true;
            sk_asset_destroy(a);
        } else {
            assert_null(a);
        }
        assert_int_equal(c.live, 0);
    }
    assert_true(succeeded);
    free(json);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_assets),
        cmocka_unit_test(test_byte_stride_and_normalized),
        cmocka_unit_test(test_sparse),
        cmocka_unit_test(test_matrix_and_hierarchy),
        cmocka_unit_test(test_skin),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_nonfinite_keys),
        cmocka_unit_test(test_glb),
        cmocka_unit_test(test_external_files),
        cmocka_unit_test(test_allocator),
        cmocka_unit_test(test_file_callbacks),
        cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_json_out_of_memory),
        cmocka_unit_test(test_json_checker),
        cmocka_unit_test(test_writer_allocator),
        cmocka_unit_test(test_looks_cesium_man),
        cmocka_unit_test(test_looks_external_images),
        cmocka_unit_test(test_looks_handwritten),
        cmocka_unit_test(test_valid_files_load),
        cmocka_unit_test(test_placeholder_buffer),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
