/* Allocation failure, everywhere: real loads through a counting sk_allocator
 * that can fail any one allocation.
 *  1. Count: a load of a real model (the exported mannequin, .glb in memory;
 *     ../shared's CesiumMan .glb and SimpleSkin .gltf with external .bin
 *     files, from disk), a state machine (tests/data/blend/locomotion.json on
 *     the mannequin's clips, from memory and from its file), a motion
 *     analysis (the mannequin's walk saved as JSON, from memory and from a
 *     file) and the mannequin itself; every byte allocated
 *     must be freed by the destroy function, and every free must give back
 *     the size that was allocated (sk_allocator passes sizes).
 *  2. For every allocation index k of that count, run the same load with
 *     allocation k and every one after it failing (memory exhausted): it must
 *     return SK_ERR_OUT_OF_MEMORY with a NULL result, and leave no byte
 *     allocated (no leak, no crash: the sanitizer build checks the memory
 *     accesses too).
 *  3. Again with only allocation k failing (a transient failure): the load
 *     must either return SK_ERR_OUT_OF_MEMORY as above, or, where the
 *     allocation was optional (sk_clip_builder_reserve, a documented
 *     optimisation the glTF reader ignores the result of), succeed with a
 *     result equal to the normal load's, freed completely by its destroy.
 *     Both allocator shapes are covered: with realloc, and without (the
 *     library then uses alloc + copy + free).
 *     The JSON document of every JSON reader (glTF, state machine, motion
 *     analysis: src/io/json.c) is in that count too (its values and its
 *     strings, and the growth of the values while they are read).
 *  4. No load allocates through cJSON: with cJSON_InitHooks counting, every
 *     load above makes no cJSON allocation (the state-machine and analysis
 *     readers once parsed with cJSON, whose tree bypassed sk_allocator; they
 *     read with the library's own reader now, and their JSON memory is
 *     failed one allocation at a time in 2 and 3 like everything else).
 *  5. The BVH reader (tests/data/bvh/mixed.bvh and the shared 02_01.bvh) the
 *     same way as 1-3; and the .skc reader (the mannequin's clips compressed,
 *     in memory).
 * Every count is printed; the loops assert that they ran every index. */
#include "support.h"
#include "io/gltf_stream.h" /* sk_gltf_load_file_streamed */

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the counting allocator ------------------------------------------------ */

typedef struct tracker {
    size_t calls;         /* alloc and realloc calls so far */
    size_t fail_at;       /* 1-based index of the call to fail, 0 = none */
    bool persistent;      /* and every call after it (memory stays exhausted) */
    bool failed;          /* that call happened */
    size_t live_bytes, live_blocks, total_bytes;
    size_t bad_sizes;     /* frees/reallocs whose size differs from the allocation's */
} tracker;

typedef struct header {
    size_t size;
    size_t magic;
} header;
#define MAGIC ((size_t)0x5ca1ab1e)

static bool fail_now(tracker *t) {
    t->calls++;
    if (t->fail_at && (t->calls == t->fail_at || (t->persistent && t->calls > t->fail_at))) {
        t->failed = true;
        return true;
    }
    return false;
}

static void *t_alloc(void *user, size_t size) {
    tracker *t = user;
    if (fail_now(t)) return NULL;
    header *h = malloc(sizeof(header) + size);
    if (!h) return NULL;
    h->size = size, h->magic = MAGIC;
    t->live_bytes += size, t->live_blocks++, t->total_bytes += size;
    return h + 1;
}

static void t_free(void *user, void *p, size_t size) {
    tracker *t = user;
    if (!p) return;
    header *h = (header *)p - 1;
    assert_true(h->magic == MAGIC); /* a block of ours, freed once */
    if (h->size != size) {
        if (t->bad_sizes < 5) fprintf(stderr, "free of a %zu-byte block with size %zu\n", h->size, size);
        t->bad_sizes++;
    }
    h->magic = 0;
    t->live_bytes -= h->size, t->live_blocks--;
    free(h);
}

static void *t_realloc(void *user, void *p, size_t old_size, size_t new_size) {
    tracker *t = user;
    if (fail_now(t)) return NULL; /* the old block stays valid */
    header *h = p ? (header *)p - 1 : NULL;
    size_t had = 0;
    if (h) {
        assert_true(h->magic == MAGIC);
        if (h->size != old_size) {
            if (t->bad_sizes < 5) fprintf(stderr, "realloc of a %zu-byte block with old size %zu\n", h->size, old_size);
            t->bad_sizes++;
        }
        had = h->size;
    }
    header *n = realloc(h, sizeof(header) + new_size);
    if (!n) return NULL;
    n->size = new_size, n->magic = MAGIC;
    t->live_bytes += new_size - had;
    if (!h) t->live_blocks++;
    if (new_size > had) t->total_bytes += new_size - had;
    return n + 1;
}

static sk_allocator make_allocator(tracker *t, bool with_realloc) {
    sk_allocator a = {t_alloc, with_realloc ? t_realloc : NULL, t_free, t};
    return a;
}

/* ---- cJSON's hooks: count and fail its mallocs too ----------------------------- */

static tracker cj; /* cJSON's allocations (malloc/free hooks carry no size: blocks only) */

static void *cj_malloc(size_t size) {
    if (fail_now(&cj)) return NULL;
    header *h = malloc(sizeof(header) + size);
    if (!h) return NULL;
    h->size = size, h->magic = MAGIC;
    cj.live_bytes += size, cj.live_blocks++;
    return h + 1;
}

static void cj_free(void *p) {
    if (!p) return;
    header *h = (header *)p - 1;
    assert_true(h->magic == MAGIC);
    h->magic = 0;
    cj.live_bytes -= h->size, cj.live_blocks--;
    free(h);
}

static void cj_hooks(bool on) {
    cJSON_Hooks hooks = {on ? cj_malloc : NULL, on ? cj_free : NULL};
    cJSON_InitHooks(&hooks); /* NULL, NULL: back to malloc/free */
    memset(&cj, 0, sizeof cj);
}

/* ---- the loads ----------------------------------------------------------------- */

typedef struct load {
    const char *name;
    sk_result (*run)(const struct load *l, const sk_allocator *a, void **out, sk_error *err);
    void (*destroy)(void *obj);
    /* For results of a load that survived a transient failure: equal to the reference? NULL: never allowed. */
    bool (*same)(const void *obj, const void *ref);
    const void *data; /* input */
    size_t size;
    const char *path;
    const sk_skeleton *skel; /* state machines */
    sk_clip *const *clips;
    uint32_t clip_count;
} load;

static sk_result run_gltf_memory(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    sk_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator = *a;
    return sk_gltf_load_memory(l->data, l->size, NULL, &o, (sk_asset **)out, err);
}

static sk_result run_gltf_file(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    sk_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator = *a;
    return sk_gltf_load_file(l->path, &o, (sk_asset **)out, err);
}

/* the .glb's BIN chunk streamed (src/io/gltf_stream.c), whatever its size */
static sk_result run_gltf_streamed(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    sk_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator = *a;
    return sk_gltf_load_file_streamed(l->path, &o, 0, (sk_asset **)out, NULL, err);
}

static sk_result run_graph(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    return sk_graph_load_json(l->data, l->size, l->skel, l->clips, l->clip_count, a, (sk_graph **)out, err);
}

static sk_result run_graph_file(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    return sk_graph_load_file(l->path, l->skel, l->clips, l->clip_count, a, NULL, (sk_graph **)out, err);
}

static sk_result run_analysis(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    return sk_motion_analysis_from_json(l->data, l->size, a, (sk_motion_analysis **)out, err);
}

static sk_result run_analysis_file(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    return sk_motion_analysis_load(l->path, a, NULL, (sk_motion_analysis **)out, err);
}

static sk_result run_mannequin(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    (void)l;
    return sk_mannequin_create(NULL, a, (sk_asset **)out, err);
}

static sk_result run_bvh_file(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    sk_bvh_options o;
    memset(&o, 0, sizeof o);
    o.allocator = *a;
    return sk_bvh_load_file(l->path, &o, (sk_asset **)out, err);
}

static void destroy_asset(void *p) { sk_asset_destroy(p); }
static void destroy_graph(void *p) { sk_graph_destroy(p); }
static void destroy_analysis(void *p) { sk_motion_analysis_destroy(p); }

/* Two assets are the same load: same counts, names, and bit-identical rest
 * poses, clip samples (at 7 times per clip), meshes' positions and skins. */
static bool same_asset(const void *pa, const void *pb) {
    const sk_asset *a = pa, *b = pb;
    const sk_skeleton *sa = a->skeleton, *sb = b->skeleton;
    if (sa->joint_count != sb->joint_count || a->clip_count != b->clip_count || a->mesh_count != b->mesh_count ||
        a->skin_count != b->skin_count || sa->weight_total != sb->weight_total)
        return false;
    uint32_t n = sa->joint_count;
    if (memcmp(sa->parents, sb->parents, n * sizeof *sa->parents) || memcmp(sa->rest, sb->rest, n * sizeof *sa->rest))
        return false;
    for (uint32_t j = 0; j < n; j++)
        if ((sa->names[j] == NULL) != (sb->names[j] == NULL) || (sa->names[j] && strcmp(sa->names[j], sb->names[j])))
            return false;
    sk_transform *la = calloc(n, sizeof *la), *lb = calloc(n, sizeof *lb);
    float *wa = calloc(sa->weight_total + 1, sizeof *wa), *wb = calloc(sa->weight_total + 1, sizeof *wb);
    bool same = la && lb && wa && wb;
    for (uint32_t c = 0; same && c < a->clip_count; c++) {
        double d = sk_clip_duration(a->clips[c]);
        same = d == sk_clip_duration(b->clips[c]) && strcmp(sk_clip_name(a->clips[c]), sk_clip_name(b->clips[c])) == 0;
        for (int k = 0; same && k < 7; k++) {
            double t = d * k / 6.0;
            same = sk_clip_sample(a->clips[c], sa, t, SK_LOOP_CLAMP, SK_POSE_OF(sa, la, wa), NULL) == SK_OK &&
                   sk_clip_sample(b->clips[c], sb, t, SK_LOOP_CLAMP, SK_POSE_OF(sb, lb, wb), NULL) == SK_OK &&
                   memcmp(la, lb, n * sizeof *la) == 0 && memcmp(wa, wb, sa->weight_total * sizeof *wa) == 0;
        }
    }
    for (uint32_t m = 0; same && m < a->mesh_count; m++) {
        same = a->meshes[m].primitive_count == b->meshes[m].primitive_count;
        for (uint32_t p = 0; same && p < a->meshes[m].primitive_count; p++) {
            const sk_primitive *x = &a->meshes[m].primitives[p], *y = &b->meshes[m].primitives[p];
            same = x->vertex_count == y->vertex_count && x->influence_count == y->influence_count &&
                   memcmp(x->positions, y->positions, x->vertex_count * 3 * sizeof(float)) == 0;
        }
    }
    for (uint32_t k = 0; same && k < a->skin_count; k++)
        same = a->skins[k].joint_count == b->skins[k].joint_count &&
               memcmp(a->skins[k].joints, b->skins[k].joints, a->skins[k].joint_count * sizeof(uint32_t)) == 0 &&
               memcmp(a->skins[k].inverse_bind, b->skins[k].inverse_bind, a->skins[k].joint_count * sizeof(sk_mat4)) == 0;
    free(la), free(lb), free(wa), free(wb);
    return same;
}

/* The whole procedure for one load; returns the number of allocations counted
 * (with realloc). */
static size_t check_load(const load *l) {
    sk_error err;
    size_t counted = 0;
    for (int shape = 0; shape < 2; shape++) {
        const bool with_realloc = shape == 0;
        tracker t, tref;
        memset(&t, 0, sizeof t);
        memset(&tref, 0, sizeof tref);
        sk_allocator a = make_allocator(&t, with_realloc), aref = make_allocator(&tref, with_realloc);
        /* 1. count; the reference result is kept (in its own tracker) for step 3 */
        void *obj = NULL, *ref = NULL;
        memset(&err, 0, sizeof err);
        sk_result r = l->run(l, &aref, &ref, &err);
        if (r != SK_OK) fprintf(stderr, "%s: %s\n", l->name, err.message);
        assert_int_equal(r, SK_OK);
        assert_non_null(ref);
        const size_t n = tref.calls, held = tref.live_bytes, total = tref.total_bytes;
        assert_true(n > 0);
        /* 2. memory exhausted from allocation k on; 3. only allocation k fails */
        size_t oom = 0, tolerated = 0;
        for (int persistent = 1; persistent >= 0; persistent--) {
            for (size_t k = 1; k <= n; k++) {
                memset(&t, 0, sizeof t);
                t.fail_at = k;
                t.persistent = persistent;
                obj = NULL;
                memset(&err, 0, sizeof err);
                r = l->run(l, &a, &obj, &err);
                bool ok_tolerated = !persistent && r == SK_OK && obj && l->same && l->same(obj, ref);
                if (ok_tolerated) {
                    l->destroy(obj);
                    obj = NULL;
                    tolerated++;
                } else {
                    oom += r == SK_ERR_OUT_OF_MEMORY;
                }
                if (!ok_tolerated && (r != SK_ERR_OUT_OF_MEMORY || obj))
                    fprintf(stderr, "%s (%s): allocation %zu of %zu failed%s: %s (%s), result %p\n", l->name,
                            with_realloc ? "realloc" : "no realloc", k, n, persistent ? " and all after it" : " alone",
                            sk_result_string(r), err.message, obj);
                if (t.live_bytes || t.live_blocks || t.bad_sizes)
                    fprintf(stderr, "%s (%s): allocation %zu of %zu failed%s: %zu bytes in %zu blocks left, %zu size "
                                    "mismatches\n",
                            l->name, with_realloc ? "realloc" : "no realloc", k, n,
                            persistent ? " and all after it" : " alone", t.live_bytes, t.live_blocks, t.bad_sizes);
                assert_true(t.failed); /* the load is deterministic: allocation k happened */
                assert_true(ok_tolerated || r == SK_ERR_OUT_OF_MEMORY);
                assert_null(obj);
                assert_int_equal(t.live_bytes, 0);
                assert_int_equal(t.live_blocks, 0);
                assert_int_equal(t.bad_sizes, 0);
            }
        }
        l->destroy(ref);
        printf("%-44s %s: %4zu allocations (%8zu bytes, %7zu held by the result), all freed by destroy; each failed: "
               "%zu x out of memory, %zu optional ones survived with the same result\n",
               l->name, with_realloc ? "realloc   " : "no realloc", n, total, held, oom, tolerated);
        assert_int_equal(tref.live_bytes, 0);
        assert_int_equal(tref.live_blocks, 0);
        assert_int_equal(tref.bad_sizes, 0);
        assert_int_equal(oom + tolerated, 2 * n); /* every index, both ways */
        assert_true(oom >= n);                    /* exhausted memory is always reported */
        if (with_realloc) counted = n;
    }
    /* 4. nothing through cJSON */
    tracker t;
    memset(&t, 0, sizeof t);
    sk_allocator a = make_allocator(&t, true);
    cj_hooks(true);
    void *obj = NULL;
    memset(&err, 0, sizeof err);
    sk_result r = l->run(l, &a, &obj, &err);
    const size_t cj_calls = cj.calls;
    cj_hooks(false);
    assert_int_equal(r, SK_OK);
    l->destroy(obj);
    printf("%-44s cJSON: %zu allocations\n", l->name, cj_calls);
    assert_int_equal(cj_calls, 0);
    assert_int_equal(t.live_bytes, 0);
    return counted;
}

/* ---- the cases ------------------------------------------------------------------- */

static void test_mannequin_glb(void **st) {
    (void)st;
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    void *glb = NULL;
    size_t size = 0;
    assert_int_equal(sk_glb_write_memory(m, &glb, &size, NULL), SK_OK);
    load l = {"gltf: the exported mannequin (.glb, memory)", run_gltf_memory, destroy_asset, same_asset, glb, size,
              NULL, NULL, NULL, 0};
    size_t n = check_load(&l);
    assert_true(n > 10);
    sk_free(sk_asset_allocator(m), glb, size);
    sk_asset_destroy(m);
}

static sk_result run_skc_memory(const load *l, const sk_allocator *a, void **out, sk_error *err) {
    return sk_skc_load_memory(l->data, l->size, false, a, (sk_asset **)out, NULL, err);
}

/* The mannequin's four clips compressed, as a .skc in memory: each clip's
 * plan (its SoA placement and constant rows among it) and every other block. */
static void test_mannequin_skc(void **st) {
    (void)st;
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    sk_clip *cc[8];
    assert_true(m->clip_count > 0 && m->clip_count <= 8);
    for (uint32_t i = 0; i < m->clip_count; i++)
        assert_int_equal(sk_clip_compress(m->clips[i], m->skeleton, NULL, NULL, &cc[i], NULL, NULL), SK_OK);
    void *skc = NULL;
    size_t size = 0;
    assert_int_equal(sk_skc_write_memory(m->skeleton, cc, m->clip_count, 1.0, NULL, &skc, &size, NULL), SK_OK);
    load l = {"skc: the mannequin's clips compressed (memory)", run_skc_memory, destroy_asset, same_asset, skc, size,
              NULL, NULL, NULL, 0};
    size_t n = check_load(&l);
    assert_true(n >= 3 * m->clip_count);
    free(skc);
    for (uint32_t i = 0; i < m->clip_count; i++) sk_clip_destroy(cc[i]);
    sk_asset_destroy(m);
}

static void test_mannequin_create(void **st) {
    (void)st;
    load l = {"mannequin: sk_mannequin_create", run_mannequin, destroy_asset, NULL, NULL, 0, NULL, NULL, NULL, 0};
    check_load(&l);
}

static void test_graph(void **st) {
    (void)st;
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/data/blend/locomotion.json", sk_test_source_dir());
    size_t size = 0;
    char *json = sk_test_read_file(path, &size);
    if (!json) fprintf(stderr, "%s: cannot read\n", path);
    assert_non_null(json);
    load l = {"state machine: tests/data/blend/locomotion.json", run_graph, destroy_graph, NULL, json, size, NULL,
              m->skeleton, m->clips, m->clip_count};
    check_load(&l);
    load lf = {"state machine: tests/data/blend/locomotion.json (file)", run_graph_file, destroy_graph, NULL, NULL, 0,
               path, m->skeleton, m->clips, m->clip_count};
    check_load(&lf);
    /* Not JSON at all, and JSON cut short: errors, nothing allocated left. */
    tracker t;
    memset(&t, 0, sizeof t);
    sk_allocator a = make_allocator(&t, true);
    sk_graph *g = NULL;
    sk_error err = {0};
    assert_int_equal(sk_graph_load_json("{\"machine\": [", 13, m->skeleton, m->clips, m->clip_count, &a, &g, &err),
                     SK_ERR_PARSE);
    assert_null(g);
    assert_int_equal(sk_graph_load_json(json, size / 2, m->skeleton, m->clips, m->clip_count, &a, &g, &err), SK_ERR_PARSE);
    assert_null(g);
    assert_int_equal(t.live_bytes, 0);
    free(json);
    sk_asset_destroy(m);
}

static void test_shared_models(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char cm[2048], ss[2048];
    snprintf(cm, sizeof cm, "%s/assets/gltf/CesiumMan/CesiumMan.glb", shared);
    snprintf(ss, sizeof ss, "%s/assets/gltf/SimpleSkin/SimpleSkin.gltf", shared);
    load l1 = {"gltf: CesiumMan.glb (file)", run_gltf_file, destroy_asset, same_asset, NULL, 0, cm, NULL, NULL, 0};
    load l2 = {"gltf: SimpleSkin.gltf + .bin files (file)", run_gltf_file, destroy_asset, same_asset, NULL, 0, ss, NULL,
               NULL, 0};
    load l3 = {"gltf: CesiumMan.glb (file, BIN streamed)", run_gltf_streamed, destroy_asset, same_asset, NULL, 0, cm,
               NULL, NULL, 0};
    check_load(&l1);
    check_load(&l2);
    check_load(&l3);
}

/* A motion analysis of the mannequin's walk as JSON, loaded from memory and
 * from a file beside the build; then broken JSON and a document cut short:
 * errors, nothing left allocated. */
static void test_analysis(void **st) {
    (void)st;
    sk_asset *m = NULL;
    assert_int_equal(sk_mannequin_create(NULL, NULL, &m, NULL), SK_OK);
    sk_leg_desc legs[2];
    assert_int_equal(sk_legs_find(m->skeleton, legs, 2), 2);
    sk_motion_analysis *an = NULL;
    sk_error err = {0};
    const sk_clip *walk = m->clips[sk_asset_find_clip(m, "walk")];
    assert_int_equal(sk_motion_analyze(m->skeleton, walk, legs, 2, NULL, NULL, &an, &err), SK_OK);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(sk_motion_analysis_to_json(an, NULL, &text, &len, &err), SK_OK);
    char path[2048];
    const char *bin = getenv("SK_BINARY_DIR");
    snprintf(path, sizeof path, "%s/alloc_failure_analysis.json", bin && *bin ? bin : ".");
    assert_int_equal(sk_motion_analysis_save(an, path, NULL, NULL, &err), SK_OK);
    load l = {"motion analysis: the mannequin's walk (memory)", run_analysis, destroy_analysis, NULL, text, len, NULL,
              NULL, NULL, 0};
    assert_true(check_load(&l) > 2);
    load lf = {"motion analysis: the mannequin's walk (file)", run_analysis_file, destroy_analysis, NULL, NULL, 0, path,
               NULL, NULL, 0};
    assert_true(check_load(&lf) > 3);
    tracker t;
    memset(&t, 0, sizeof t);
    sk_allocator a = make_allocator(&t, true);
    sk_motion_analysis *back = NULL;
    assert_int_equal(sk_motion_analysis_from_json("{\"legs\": [", 10, &a, &back, &err), SK_ERR_PARSE);
    assert_null(back);
    assert_int_equal(sk_motion_analysis_from_json(text, len / 2, &a, &back, &err), SK_ERR_PARSE);
    assert_null(back);
    assert_int_equal(t.live_bytes, 0);
    remove(path);
    sk_free(NULL, text, len + 1);
    sk_motion_analysis_destroy(an);
    sk_asset_destroy(m);
}

/* A glTF whose JSON is broken: a parse error with the place, nothing left allocated. */
static void test_gltf_bad_json(void **st) {
    (void)st;
    tracker t;
    memset(&t, 0, sizeof t);
    sk_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator = make_allocator(&t, true);
    static const char *const bad[] = {"{\"asset\": {\"version\": \"2.0\"", "{\"asset\": [}", "not json", "{} trailing"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sk_asset *a = NULL;
        sk_error err = {0};
        sk_result r = sk_gltf_load_memory(bad[i], strlen(bad[i]), NULL, &o, &a, &err);
        printf("bad JSON '%s': %s: %s\n", bad[i], sk_result_string(r), err.message);
        assert_int_equal(r, SK_ERR_PARSE);
        assert_null(a);
        assert_int_equal(t.live_bytes, 0);
    }
}

/* The BVH reader (io/bvh.h): the file through the default sk_file_io, the
 * hierarchy, the frame values, the skeleton and the clip; a hand-made file
 * with everything unusual, and a shared CMU clip. */
static void test_bvh(void **st) {
    (void)st;
    char mixed[2048], cmu[2048];
    snprintf(mixed, sizeof mixed, "%s/tests/data/bvh/mixed.bvh", sk_test_source_dir());
    load l1 = {"bvh: tests/data/bvh/mixed.bvh (file)", run_bvh_file, destroy_asset, same_asset, NULL, 0, mixed, NULL,
               NULL, 0};
    assert_true(check_load(&l1) > 5);
    const char *shared = sk_test_require_shared();
    snprintf(cmu, sizeof cmu, "%s/mocap/bvh/02_01.bvh", shared);
    load l2 = {"bvh: mocap/bvh/02_01.bvh (file)", run_bvh_file, destroy_asset, same_asset, NULL, 0, cmu, NULL, NULL, 0};
    assert_true(check_load(&l2) > 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mannequin_glb), cmocka_unit_test(test_mannequin_skc), cmocka_unit_test(test_mannequin_create),
        cmocka_unit_test(test_graph),         cmocka_unit_test(test_analysis),        cmocka_unit_test(test_gltf_bad_json),
        cmocka_unit_test(test_shared_models), cmocka_unit_test(test_bvh),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
