/* A large .glb's BIN chunk streamed (src/io/gltf_stream.c): sk_gltf_load_file
 * reads the animation keys of LINEAR channels from the file as the clip
 * builder needs them. The reference is the same file read whole by
 * sk_gltf_load_memory: the same result, the same message, the same asset
 * (every clip's keys, meshes, skins, skeleton), on every .glb of ../shared
 * and the repository, and on files made here to press the edges (bytes a
 * mesh, an image or a STEP channel read from a streamed range; bad keys in
 * a streamed range; broken containers; a second buffer without uri, which
 * has no data, read by nothing, a mesh, an image or a channel). Every file
 * is streamed here (stream_min 0) whatever its size. */
#include "support.h"
#include "io/gltf_stream.h" /* sk_gltf_load_file_streamed */

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool same_floats(const float *a, const float *b, size_t n) {
    return (!a && !b) || (a && b && memcmp(a, b, n * sizeof(float)) == 0);
}

/* Everything the two loads produced, bit for bit. */
static void assert_same_asset(const sk_asset *a, const sk_asset *b, const char *what) {
    const sk_skeleton *sa = a->skeleton, *sb = b->skeleton;
    assert_int_equal(sa != NULL, sb != NULL);
    if (sa) {
        assert_int_equal(sa->joint_count, sb->joint_count);
        assert_int_equal(sa->weight_total, sb->weight_total);
        assert_memory_equal(sa->parents, sb->parents, sa->joint_count * sizeof *sa->parents);
        assert_memory_equal(sa->rest, sb->rest, sa->joint_count * sizeof *sa->rest);
    }
    assert_int_equal(a->clip_count, b->clip_count);
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const sk_clip *x = a->clips[c], *y = b->clips[c];
        assert_string_equal(sk_clip_name(x), sk_clip_name(y));
        assert_true(sk_clip_duration(x) == sk_clip_duration(y));
        assert_int_equal(sk_clip_track_count(x), sk_clip_track_count(y));
        assert_int_equal(sk_clip_is_frame_major(x), sk_clip_is_frame_major(y));
        assert_int_equal(sk_clip_memory_size(x), sk_clip_memory_size(y));
        for (uint32_t t = 0; t < sk_clip_track_count(x); t++) {
            sk_track_info ix, iy;
            assert_true(sk_clip_track_info(x, t, &ix));
            assert_true(sk_clip_track_info(y, t, &iy));
            assert_true(ix.joint == iy.joint && ix.path == iy.path && ix.interpolation == iy.interpolation &&
                        ix.key_count == iy.key_count && ix.width == iy.width && ix.time_min == iy.time_min &&
                        ix.time_max == iy.time_max);
            size_t nv = (size_t)ix.key_count * ix.width * (ix.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u);
            float *tx = malloc(ix.key_count * sizeof(float)), *ty = malloc(ix.key_count * sizeof(float));
            float *vx = malloc(nv * sizeof(float)), *vy = malloc(nv * sizeof(float));
            assert_true(sk_clip_track_keys(x, t, tx, vx));
            assert_true(sk_clip_track_keys(y, t, ty, vy));
            if (memcmp(tx, ty, ix.key_count * sizeof(float)) || memcmp(vx, vy, nv * sizeof(float)))
                fail_msg("%s: clip %u track %u: keys differ", what, c, t);
            free(tx), free(ty), free(vx), free(vy);
        }
    }
    assert_int_equal(a->mesh_count, b->mesh_count);
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        assert_int_equal(a->meshes[m].primitive_count, b->meshes[m].primitive_count);
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) {
            const sk_primitive *x = &a->meshes[m].primitives[p], *y = &b->meshes[m].primitives[p];
            size_t v = x->vertex_count;
            assert_int_equal(x->vertex_count, y->vertex_count);
            assert_int_equal(x->index_count, y->index_count);
            assert_int_equal(x->influence_count, y->influence_count);
            assert_true(same_floats(x->positions, y->positions, v * 3));
            assert_true(same_floats(x->normals, y->normals, v * 3));
            assert_true(same_floats(x->tangents, y->tangents, v * 4));
            assert_true(same_floats(x->texcoords, y->texcoords, v * 2));
            assert_true(same_floats(x->weights, y->weights, v * x->influence_count));
            if (x->index_count) assert_memory_equal(x->indices, y->indices, x->index_count * sizeof(uint32_t));
            if (x->influence_count) assert_memory_equal(x->joints, y->joints, v * x->influence_count * sizeof(uint16_t));
            assert_int_equal(x->missing_data != NULL, y->missing_data != NULL);
            if (x->missing_data) assert_string_equal(x->missing_data, y->missing_data);
        }
    }
    assert_int_equal(a->image_count, b->image_count);
    for (uint32_t i = 0; i < a->image_count; i++) {
        const sk_image *x = &a->images[i], *y = &b->images[i];
        assert_int_equal(x->size, y->size);
        assert_int_equal(x->data != NULL, y->data != NULL);
        if (x->data && x->size) assert_memory_equal(x->data, y->data, x->size);
    }
    assert_int_equal(a->skin_count, b->skin_count);
    for (uint32_t k = 0; k < a->skin_count; k++) {
        assert_int_equal(a->skins[k].joint_count, b->skins[k].joint_count);
        assert_memory_equal(a->skins[k].joints, b->skins[k].joints, a->skins[k].joint_count * sizeof(uint32_t));
        assert_memory_equal(a->skins[k].inverse_bind, b->skins[k].inverse_bind,
                            a->skins[k].joint_count * sizeof(sk_mat4));
    }
}

static char last_message[256]; /* the memory load's message, for the log */

/* One file both ways (streamed from stream_min bytes): the same outcome.
 * Returns the streamed load's figures. */
static sk_gltf_stream_stats load_both_from(const char *path, uint64_t stream_min, sk_result *result) {
    size_t size = 0;
    char *data = sk_test_read_file(path, &size);
    assert_non_null(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    sk_asset *mem = NULL, *str = NULL;
    sk_error em = {0}, es = {0};
    sk_result rm = sk_gltf_load_memory(data, size, dir, NULL, &mem, &em);
    sk_gltf_stream_stats st;
    sk_result rs = sk_gltf_load_file_streamed(path, NULL, stream_min, &str, &st, &es);
    if (rm != rs) fail_msg("%s: memory %d (%s), streamed %d (%s)", path, rm, em.message, rs, es.message);
    if (rm == SK_OK) assert_same_asset(mem, str, path);
    else { /* the file's messages start with its path */
        char want[sizeof em.message + 1100];
        snprintf(want, sizeof want, "%s: %s", path, em.message);
        if (strncmp(want, es.message, sizeof es.message - 1) != 0)
            fail_msg("%s: memory \"%s\", streamed \"%s\"", path, em.message, es.message);
    }
    sk_asset_destroy(mem);
    sk_asset_destroy(str);
    free(data);
    snprintf(last_message, sizeof last_message, "%s", em.message);
    *result = rs;
    return st;
}

/* Every .glb streamed, and its key ranges whatever their share. */
static sk_gltf_stream_stats load_both(const char *path, sk_result *result) {
    return load_both_from(path, 0, result);
}

static bool has_suffix(const char *s, const char *x) {
    size_t n = strlen(s), m = strlen(x);
    return n >= m && strcmp(s + n - m, x) == 0;
}

/* Every .glb under dir (recursively), both ways. */
static void corpus(const char *dir, uint32_t *files, uint32_t *streamed, uint32_t *filled) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (has_suffix(e->d_name, ".glb")) {
            sk_result r;
            sk_gltf_stream_stats st = load_both(p, &r);
            (*files)++;
            if (r == SK_OK && st.ranges) (*streamed)++;
            *filled += st.filled;
        } else if (!strchr(e->d_name, '.'))
            corpus(p, files, streamed, filled);
    }
    closedir(d);
}

static void test_corpus(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    uint32_t files = 0, streamed = 0, filled = 0;
    char dir[1024];
    const char *sub[] = {"assets/gltf", "assets/validator", "mocap/glb"};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/%s", shared, sub[i]);
        corpus(dir, &files, &streamed, &filled);
    }
    uint32_t shared_files = files;
    snprintf(dir, sizeof dir, "%s/tests/data", sk_test_source_dir());
    corpus(dir, &files, &streamed, &filled);
    printf("streamed .glb: %u files loaded both ways (%u of ../shared), %u with key ranges streamed, %u ranges read "
           "in place\n", files, shared_files, streamed, filled);
    /* 8 sample models, 24 validator files, 7 captures; the repository's mannequin */
    assert_int_equal(shared_files, 39);
    assert_int_equal(files, 40);
    assert_true(streamed >= 9); /* the captures, the mannequin, CesiumMan... */
}

/* The captures: every streamed range goes to the clip builder, none is
 * read in place; keys for every joint. */
static void test_captures_stream(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    const char *names[] = {"02_01.glb", "05_06.glb", "131_03.glb", "60_01_scaled.glb"};
    for (int i = 0; i < 4; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/mocap/glb/%s", shared, names[i]);
        sk_result r;
        sk_gltf_stream_stats st = load_both(p, &r);
        assert_int_equal(r, SK_OK);
        assert_true(st.ranges >= 1);
        assert_int_equal(st.filled, 0);
        size_t size = 0;
        char *data = sk_test_read_file(p, &size);
        assert_true(st.bytes > size / 2); /* most of the file is keys */
        free(data);
    }
}

/* What sk_gltf_load_file does: files under SK_GLTF_STREAM_MIN read whole;
 * above it, key ranges streamed only when they are most of the BIN chunk
 * (the captures), else the chunk read at once (CesiumMan: a mesh, its
 * texture and a short clip). The assets equal the memory load's. */
static void test_production_rule(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    const struct {
        const char *file;
        bool streams;
    } cases[] = {
        {"mocap/glb/02_01.glb", true},                     /* 491,876 bytes, 92 % keys */
        {"mocap/glb/49_08_fbx2bvh.glb", true},             /* 957,252 bytes */
        {"mocap/glb/60_01_scaled.glb", true},              /* 3,955,740 bytes */
        {"assets/gltf/CesiumMan/CesiumMan.glb", false},    /* 490,956 bytes, keys a minority */
        {"assets/gltf/RiggedFigure/RiggedFigure.glb", false}, /* 50,116 bytes: under the minimum */
    };
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", shared, cases[i].file);
        sk_result r;
        sk_gltf_stream_stats st = load_both_from(p, SK_GLTF_STREAM_MIN, &r);
        assert_int_equal(r, SK_OK);
        if (cases[i].streams) {
            assert_true(st.ranges >= 1);
            size_t size = 0;
            char *data = sk_test_read_file(p, &size);
            assert_true(st.bytes > size / 2);
            free(data);
        } else
            assert_int_equal(st.ranges, 0);
        sk_gltf_stream_stats all = load_both(p, &r); /* stream_min 0: its keys streamed all the same */
        assert_int_equal(r, SK_OK);
        assert_true(all.ranges >= 1);
        n++;
    }
    printf("sk_gltf_load_file's rule: %u files\n", n);
    assert_int_equal(n, 5);
}

/* ---- files made here ------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...) {
    va_list ap;
    if (!b->s) b->cap = 4096, b->s = malloc(b->cap);
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if ((size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)k + 64;
        b->s = realloc(b->s, b->cap);
    }
}

enum { NODES = 10, KEYS = 40 };
#define KEYS_VEC3_BYTES "480" /* KEYS * 12, in the JSON */

/* What to press in a made file. */
typedef struct made {
    bool alias_mesh;    /* a mesh's POSITION over node 0's translation keys */
    bool step_shares;   /* a STEP channel (animation 1) reads node 3's rotation keys */
    bool image_overlap; /* an image's bufferView over node 5's rotation keys */
    int bad_key;        /* 1: a NaN in node 7's rotations; 2: a rotation of length 1.5; 3: a translation of 1e20 */
    int container;      /* 1: the BIN chunk's length past the file; 2: an unknown chunk after BIN */
    int placeholder;    /* buffer 1 without uri (no data) and a VEC3 accessor of KEYS there, read by nothing (1),
                           a mesh on node 1 (2), an image (3), a translation channel of a second animation (4) */
} made;

/* A .glb of NODES nodes in a chain, one animation with LINEAR translation,
 * rotation and scale channels for each (KEYS keys, one times accessor). */
static void write_made(const char *path, const made *m) {
    size_t tfl = KEYS, per = (size_t)KEYS * 10; /* floats: times, then per node T(3) R(4) S(3) */
    size_t nfl = tfl + NODES * per;
    float *bin = calloc(nfl + 16, sizeof(float));
    uint32_t seed = 5;
    for (uint32_t k = 0; k < KEYS; k++) bin[k] = (float)k / 30.0f;
    for (uint32_t i = 0; i < NODES; i++) {
        float *t = bin + tfl + i * per, *r = t + KEYS * 3, *s = r + KEYS * 4;
        for (uint32_t k = 0; k < KEYS; k++) {
            for (int c = 0; c < 3; c++) t[k * 3 + c] = sk_test_rnd(&seed), s[k * 3 + c] = 1.0f + 0.1f * sk_test_rnd(&seed);
            sk_quat q = sk_test_rnd_quat(&seed);
            r[k * 4] = q.x, r[k * 4 + 1] = q.y, r[k * 4 + 2] = q.z, r[k * 4 + 3] = q.w;
        }
    }
    if (m->bad_key == 1) bin[tfl + 7 * per + KEYS * 3 + 4 * 11 + 2] = NAN;
    if (m->bad_key == 2)
        for (int c = 0; c < 4; c++) bin[tfl + 7 * per + KEYS * 3 + 4 * 12 + c] *= 1.5f;
    if (m->bad_key == 3) bin[tfl + 2 * per + 3 * 9 + 1] = 1e20f;
    sbuf j = {0};
    sb_add(&j, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    for (uint32_t i = 0; i < NODES; i++) {
        sb_add(&j, "%s{\"name\":\"n%u\"", i ? "," : "", i);
        if (i + 1 < NODES) sb_add(&j, ",\"children\":[%u]", i + 1);
        if (i == 0 && m->alias_mesh) sb_add(&j, ",\"mesh\":0");
        if (i == 1 && m->placeholder == 2) sb_add(&j, ",\"mesh\":%d", m->alias_mesh ? 1 : 0);
        sb_add(&j, "}");
    }
    sb_add(&j, "],\"buffers\":[{\"byteLength\":%zu}%s],\"bufferViews\":[", nfl * 4,
           m->placeholder ? ",{\"byteLength\":" KEYS_VEC3_BYTES "}" : "");
    sb_add(&j, "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu}", tfl * 4);
    for (uint32_t i = 0; i < NODES; i++) {
        size_t at = (tfl + i * per) * 4;
        sb_add(&j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%u}", at, KEYS * 12);
        sb_add(&j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%u}", at + KEYS * 12, KEYS * 16);
        sb_add(&j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%u}", at + KEYS * 28, KEYS * 12);
    }
    uint32_t views = 1 + 3 * NODES;
    if (m->image_overlap) /* 64 bytes inside node 5's rotations */
        sb_add(&j, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":64}", (tfl + 5 * per + KEYS * 3 + 8) * 4);
    uint32_t ph_view = views + (m->image_overlap ? 1u : 0u), ph_acc = 1 + 3 * NODES + (m->alias_mesh ? 1u : 0u);
    if (m->placeholder) sb_add(&j, ",{\"buffer\":1,\"byteLength\":" KEYS_VEC3_BYTES "}");
    sb_add(&j, "],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"SCALAR\","
               "\"min\":[0],\"max\":[%.9g]}", KEYS, (double)bin[KEYS - 1]);
    for (uint32_t i = 0; i < NODES; i++)
        sb_add(&j, ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}"
                   ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"}"
                   ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}",
               1 + 3 * i, KEYS, 2 + 3 * i, KEYS, 3 + 3 * i, KEYS);
    if (m->alias_mesh) { /* accessor 1 + 3 * NODES: node 0's translation keys as positions */
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
        for (uint32_t k = 0; k < KEYS; k++)
            for (int c = 0; c < 3; c++) {
                float v = bin[tfl + k * 3 + c];
                lo[c] = v < lo[c] ? v : lo[c], hi[c] = v > hi[c] ? v : hi[c];
            }
        sb_add(&j, ",{\"bufferView\":1,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\",\"min\":[%.9g,%.9g,%.9g],"
                   "\"max\":[%.9g,%.9g,%.9g]}", KEYS - KEYS % 3, (double)lo[0], (double)lo[1], (double)lo[2],
               (double)hi[0], (double)hi[1], (double)hi[2]);
    }
    if (m->placeholder)
        sb_add(&j, ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}", ph_view, KEYS);
    sb_add(&j, "]");
    if (m->alias_mesh || m->placeholder == 2) {
        sb_add(&j, ",\"meshes\":[");
        if (m->alias_mesh) sb_add(&j, "{\"primitives\":[{\"attributes\":{\"POSITION\":%u}}]}", 1 + 3 * NODES);
        if (m->placeholder == 2)
            sb_add(&j, "%s{\"primitives\":[{\"attributes\":{\"POSITION\":%u},\"mode\":0}]}", m->alias_mesh ? "," : "",
                   ph_acc);
        sb_add(&j, "]");
    }
    if (m->image_overlap || m->placeholder == 3) {
        sb_add(&j, ",\"images\":[");
        if (m->image_overlap) sb_add(&j, "{\"bufferView\":%u,\"mimeType\":\"image/png\"}", views);
        if (m->placeholder == 3)
            sb_add(&j, "%s{\"bufferView\":%u,\"mimeType\":\"image/png\"}", m->image_overlap ? "," : "", ph_view);
        sb_add(&j, "]");
    }
    sb_add(&j, ",\"animations\":[{\"name\":\"all\",\"samplers\":[");
    for (uint32_t i = 0; i < 3 * NODES; i++) sb_add(&j, "%s{\"input\":0,\"output\":%u}", i ? "," : "", 1 + i);
    sb_add(&j, "],\"channels\":[");
    const char *paths[3] = {"translation", "rotation", "scale"};
    for (uint32_t i = 0; i < 3 * NODES; i++)
        sb_add(&j, "%s{\"sampler\":%u,\"target\":{\"node\":%u,\"path\":\"%s\"}}", i ? "," : "", i, i / 3, paths[i % 3]);
    sb_add(&j, "]}");
    if (m->step_shares)
        sb_add(&j, ",{\"name\":\"step\",\"samplers\":[{\"input\":0,\"output\":%u,\"interpolation\":\"STEP\"}],"
                   "\"channels\":[{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"rotation\"}}]}",
               1 + 3 * 3 + 1);
    if (m->placeholder == 4)
        sb_add(&j, ",{\"name\":\"placeholder\",\"samplers\":[{\"input\":0,\"output\":%u}],"
                   "\"channels\":[{\"sampler\":0,\"target\":{\"node\":4,\"path\":\"translation\"}}]}",
               ph_acc);
    sb_add(&j, "]}");
    while (j.n % 4) sb_add(&j, " ");
    size_t bin_bytes = nfl * 4, extra = m->container == 2 ? 16 : 0;
    uint32_t total = (uint32_t)(12 + 8 + j.n + 8 + bin_bytes + extra);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint32_t h[3] = {0x46546C67u, 2, total}, cj[2] = {(uint32_t)j.n, 0x4E4F534Au},
             cb[2] = {(uint32_t)bin_bytes + (m->container == 1 ? 4096u : 0u), 0x004E4942u}, cx[2] = {8, 0x12345678u};
    fwrite(h, 4, 3, f), fwrite(cj, 4, 2, f), fwrite(j.s, 1, j.n, f), fwrite(cb, 4, 2, f), fwrite(bin, 4, nfl, f);
    if (extra) {
        uint8_t z[8] = {0};
        fwrite(cx, 4, 2, f), fwrite(z, 1, 8, f);
    }
    fclose(f);
    free(j.s);
    free(bin);
}

/* A made file whose buffer 1 has no data, streamed: the mesh reading it is
 * loaded empty and says why (placeholder 2), the image in it has no data (3);
 * the rest loads from the BIN chunk. */
static void check_placeholder(const char *path, int placeholder) {
    sk_asset *a = NULL;
    sk_error e = {0};
    assert_int_equal(sk_gltf_load_file_streamed(path, NULL, 0, &a, NULL, &e), SK_OK);
    if (placeholder == 2) {
        const sk_primitive *p = &a->meshes[1].primitives[0];
        assert_int_equal(p->vertex_count, 0);
        assert_non_null(p->missing_data);
        assert_non_null(strstr(p->missing_data, "accessor 32 needs buffer 1, which has no data: it has no uri"));
        assert_null(a->meshes[0].primitives[0].missing_data); /* the aliased mesh, from the BIN chunk */
        assert_int_equal(a->meshes[0].primitives[0].vertex_count, KEYS - KEYS % 3);
    } else {
        assert_int_equal(a->image_count, 2);
        assert_int_equal(a->images[0].size, 64);
        assert_null(a->images[1].data);
    }
    assert_int_equal(a->clip_count, 1);
    sk_asset_destroy(a);
}

static void test_made(void **state) {
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/sk_stream_%d.glb", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    struct {
        made m;
        sk_result want;
        bool any_filled;
    } cases[] = {
        {{0}, SK_OK, false},
        {{.alias_mesh = true}, SK_OK, true},
        {{.step_shares = true}, SK_OK, true},
        {{.image_overlap = true}, SK_OK, true},
        {{.alias_mesh = true, .step_shares = true, .image_overlap = true}, SK_OK, true},
        {{.bad_key = 1}, SK_ERR_INVALID_DATA, true},
        {{.bad_key = 2}, SK_ERR_INVALID_DATA, true},
        {{.bad_key = 3}, SK_ERR_INVALID_DATA, true}, /* outside the world range (gltf_limits.c) */
        {{.container = 1}, SK_ERR_PARSE, false},
        {{.container = 2}, SK_OK, false},
        /* buffer 1 has no uri and is not the BIN chunk: it has no data */
        {{.placeholder = 1}, SK_OK, false},
        {{.placeholder = 2, .alias_mesh = true}, SK_OK, true},
        {{.placeholder = 3, .image_overlap = true}, SK_OK, true},
        {{.placeholder = 4}, SK_ERR_INVALID_DATA, false},
    };
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_made(path, &cases[i].m);
        sk_result r;
        sk_gltf_stream_stats st = load_both(path, &r);
        if (r != cases[i].want) fail_msg("case %zu: %d, expected %d", i, r, cases[i].want);
        if (r != SK_OK) printf("case %zu: %s\n", i, last_message);
        if (cases[i].m.placeholder == 2 || cases[i].m.placeholder == 3) check_placeholder(path, cases[i].m.placeholder);
        if (cases[i].m.placeholder == 4)
            assert_string_equal(last_message, "/animations/1/samplers/0/output: accessor 31 needs buffer 1, which "
                                              "has no data: it has no uri (and only buffer 0 of a .glb can be its "
                                              "BIN chunk)");
        if (cases[i].m.container != 1) assert_true(st.ranges >= 1); /* (a broken container is read whole) */
        else assert_int_equal(st.ranges, 0);
        if (cases[i].any_filled) assert_true(st.filled >= 1);
        else assert_int_equal(st.filled, 0);
        n++;
    }
    unlink(path);
    printf("made .glb files: %u cases, streamed and read whole alike\n", n);
    assert_int_equal(n, 14);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_made),
        cmocka_unit_test(test_captures_stream),
        cmocka_unit_test(test_production_rule),
        cmocka_unit_test(test_corpus),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
