#include "support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int skipped_count;

bool sk_test_strict(void) {
    const char *ci = getenv("CI"), *req = getenv("SK_REQUIRE_SHARED");
    if (ci && ci[0] && strcmp(ci, "0") != 0 && strcasecmp(ci, "false") != 0) return true;
    return req && strcmp(req, "1") == 0;
}

void sk_test_missing(const char *fmt, ...) {
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fflush(stdout);
    if (sk_test_strict()) {
        fprintf(stderr, "FAIL: %s (CI or SK_REQUIRE_SHARED=1 is set: a missing prerequisite is a failure)\n", why);
        fail_msg("missing prerequisite: %s", why);
    } else {
        fprintf(stderr, "note: SKIPPED: %s (the test is reported as skipped; with CI set it would fail)\n", why);
        skipped_count++;
        skip();
    }
    abort(); /* not reached: fail_msg and skip leave the test */
}

const char *sk_test_shared_dir(void) {
    const char *d = getenv("SK_SHARED_DIR");
    struct stat st;
    if (d && stat(d, &st) == 0 && S_ISDIR(st.st_mode)) return d;
    char why[1024];
    snprintf(why, sizeof why, "../shared is absent (SK_SHARED_DIR=%s): tests on shared assets cannot run here",
             d ? d : "(unset)");
    if (sk_test_strict()) sk_test_missing("%s", why);
    fprintf(stderr, "note: SKIPPED: %s\n", why);
    skipped_count++;
    return NULL;
}

const char *sk_test_require_shared(void) {
    const char *d = sk_test_shared_dir();
    if (!d) skip(); /* the note is printed and the skip counted above */
    return d;
}

void sk_test_require_shared_file(char *out, size_t cap, const char *rel) {
    snprintf(out, cap, "%s/%s", sk_test_require_shared(), rel);
    FILE *f = fopen(out, "rb");
    if (!f) sk_test_missing("%s: cannot open", out);
    fclose(f);
}

int sk_test_exit_status(int failed) {
    if (failed) return failed;
    if (skipped_count) {
        printf("note: %d test(s) skipped for a missing prerequisite: exit status %d (ctest: skipped)\n", skipped_count,
               SK_TEST_SKIP_STATUS);
        return SK_TEST_SKIP_STATUS;
    }
    return 0;
}

sk_test_cpu sk_test_cpu_features(void) {
    sk_test_cpu c = {0};
#if defined(__x86_64__) && defined(SK_NO_SIMD)
    c.x86_64 = true; /* -DSK_SIMD=OFF: the build has no SIMD level to run, whatever the CPU has */
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    c.x86_64 = true;
    c.sse2 = __builtin_cpu_supports("sse2");
    c.avx2 = __builtin_cpu_supports("avx2");
    c.fma = __builtin_cpu_supports("fma");
    c.avx512f = __builtin_cpu_supports("avx512f");
    c.avx512vl = __builtin_cpu_supports("avx512vl");
    c.avx512dq = __builtin_cpu_supports("avx512dq");
    c.avx512bw = __builtin_cpu_supports("avx512bw");
    c.avx512vbmi = __builtin_cpu_supports("avx512vbmi");
#endif
    return c;
}

static void simd_list(char *out, size_t cap, unsigned mask, const char *const *names, int count) {
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < count && n < cap; i++)
        if (mask >> i & 1u) n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " " : "", names[i]);
    if (!out[0]) snprintf(out, cap, "none");
}

int sk_test_simd_levels(const char *what, unsigned ran, unsigned cpu, const char *const *names, int count) {
    char r[256], c[256], miss[256];
    simd_list(r, sizeof r, ran, names, count);
    simd_list(c, sizeof c, cpu, names, count);
#if defined(SK_NO_SIMD)
    printf("SIMD levels run: %s (%s; a build without SIMD, -DSK_SIMD=OFF, runs: %s)\n", r, what, c);
#else
    printf("SIMD levels run: %s (%s; this CPU supports: %s)\n", r, what, c);
#endif
    unsigned all = count >= 32 ? ~0u : (1u << count) - 1u;
    if (all & ~cpu & ~ran) {
        simd_list(miss, sizeof miss, all & ~cpu & ~ran, names, count);
        printf("note: %s: %s not run: this CPU does not support it\n", what, miss);
    }
    unsigned beyond = ran & ~cpu & all;
    if (beyond) { /* the library resolved a level to one the CPU (or a -DSK_SIMD=OFF build) cannot run */
        simd_list(miss, sizeof miss, beyond, names, count);
        fail_msg("%s: ran %s, which this CPU%s does not support", what, miss,
#if defined(SK_NO_SIMD)
                 " in a build without SIMD (-DSK_SIMD=OFF)"
#else
                 ""
#endif
        );
    }
    int missing = 0;
    for (int i = 0; i < count; i++) missing += (cpu & ~ran) >> i & 1u;
    if (missing) {
        simd_list(miss, sizeof miss, cpu & ~ran, names, count);
        fflush(stdout);
        if (sk_test_strict())
            fprintf(stderr, "FAIL: %s: this CPU supports %s, which did not run (CI is set: a level not run is a failure)\n",
                    what, miss);
        else
            fprintf(stderr, "note: %s: this CPU supports %s, which did not run (with CI set this fails)\n", what, miss);
    }
    return missing;
}

void sk_test_simd_check(int missing) {
    if (missing && sk_test_strict()) fail_msg("%d SIMD level(s) this CPU supports did not run (CI is set)", missing);
}

const char *sk_test_source_dir(void) {
    const char *d = getenv("SK_SOURCE_DIR");
    return d ? d : ".";
}

void sk_test_path(char *out, size_t cap, const char *a, const char *b) {
    snprintf(out, cap, "%s/%s", a, b);
}

char *sk_test_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); return NULL; }
    long n = ftell(f);
    if (n < 0) { fclose(f); return NULL; }
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    if (!buf) { fclose(f); return NULL; }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); fclose(f); return NULL; }
    buf[n] = 0;
    fclose(f);
    if (size) *size = (size_t)n;
    return buf;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int sk_test_model_dirs(const char *dir, char **names, int cap) {
    DIR *d = opendir(dir);
    if (!d) fprintf(stderr, "%s: cannot open\n", dir);
    assert_non_null(d); /* ../shared is there: its models must be */
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[4096];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || strcmp(e->d_name, "LICENSES") == 0) continue; /* LICENSES/: license texts */
        if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
        assert_true(count < cap);
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof(char *), cmp_name);
    return count;
}

sk_clip *sk_test_clip_turned(const sk_clip *c, const int32_t *joints, const sk_quat *turn, uint32_t n) {
    sk_clip_builder *b = NULL;
    assert_int_equal(sk_clip_builder_create(sk_clip_name(c), NULL, &b, NULL), SK_OK);
    for (uint32_t i = 0; i < sk_clip_track_count(c); i++) {
        sk_track_info info;
        assert_true(sk_clip_track_info(c, i, &info));
        uint32_t per = info.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1;
        float *kt = calloc(info.key_count, sizeof *kt), *kv = calloc((size_t)info.key_count * per * info.width, 4);
        assert_non_null(kt);
        assert_non_null(kv);
        assert_true(sk_clip_track_keys(c, i, kt, kv));
        for (uint32_t l = 0; l < n; l++) {
            if (info.path != SK_PATH_ROTATION || (int32_t)info.joint != joints[l]) continue;
            for (uint32_t k = 0; k < info.key_count * per; k++) {
                float *v = kv + 4 * k;
                sk_quat o = sk_quat_mul(sk_quat_make(v[0], v[1], v[2], v[3]), turn[l]);
                v[0] = o.x, v[1] = o.y, v[2] = o.z, v[3] = o.w;
            }
        }
        sk_track_desc d = {info.joint, info.path, info.interpolation, info.key_count, kt, kv, info.width};
        assert_int_equal(sk_clip_builder_add_track(b, &d, NULL), SK_OK);
        free(kt);
        free(kv);
    }
    sk_clip_builder_set_duration(b, sk_clip_duration(c));
    sk_clip *out = NULL;
    assert_int_equal(sk_clip_builder_finish(b, &out, NULL), SK_OK);
    return out;
}

double sk_test_quat_angle(sk_quat a, sk_quat b) {
    double ax = -a.x, ay = -a.y, az = -a.z, aw = a.w;
    double w = aw * b.w - ax * b.x - ay * b.y - az * b.z;
    double x = aw * b.x + ax * b.w + ay * b.z - az * b.y;
    double y = aw * b.y - ax * b.z + ay * b.w + az * b.x;
    double z = aw * b.z + ax * b.y - ay * b.x + az * b.w;
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

float sk_test_rnd(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / (float)(1u << 23) - 1.0f;
}

sk_quat sk_test_rnd_quat(uint32_t *s) {
    float x = sk_test_rnd(s), y = sk_test_rnd(s), z = sk_test_rnd(s), w = sk_test_rnd(s);
    return sk_quat_normalize(sk_quat_make(x, y, z, w));
}

sk_skeleton *sk_test_chain_skeleton(uint32_t n, uint32_t seed) {
    int32_t *parents = malloc(n * sizeof *parents);
    sk_transform *rest = malloc(n * sizeof *rest);
    assert_non_null(parents);
    assert_non_null(rest);
    for (uint32_t i = 0; i < n; i++) {
        parents[i] = i % 5 == 0 ? (i ? 0 : -1) : (int32_t)i - 1;
        float x = sk_test_rnd(&seed), y = sk_test_rnd(&seed), z = sk_test_rnd(&seed);
        rest[i].t = sk_vec3_make(x, y, z);
        rest[i].r = sk_test_rnd_quat(&seed);
        rest[i].s = sk_vec3_make(1.0f + 0.1f * sk_test_rnd(&seed), 1, 1);
    }
    sk_skeleton *s = NULL;
    sk_error err = {0};
    sk_skeleton_desc sd = {0};
    sd.joint_count = n;
    sd.parents = parents;
    sd.rest = rest;
    assert_int_equal(sk_skeleton_create(&sd, NULL, &s, &err), SK_OK);
    free(parents);
    free(rest);
    return s;
}

void sk_test_assert_soa_equal(const sk_skeleton *s, const sk_soa_pose *soa, const sk_transform *aos, const char *what) {
    sk_transform *back = calloc(s->joint_count, sizeof *back);
    sk_pose p = sk_pose_view(back, s->joint_count, NULL, 0);
    sk_error err = {0};
    assert_int_equal(sk_soa_pose_to_pose(s, soa, &p, &err), SK_OK);
    for (uint32_t j = 0; j < s->joint_count; j++)
        if (memcmp(&back[j], &aos[j], sizeof(sk_transform)) != 0) {
            const sk_transform *x = &back[j], *y = &aos[j];
            fprintf(stderr,
                    "%s: joint %u differs: soa t (%.9g %.9g %.9g) r (%.9g %.9g %.9g %.9g) s (%.9g %.9g %.9g), "
                    "aos t (%.9g %.9g %.9g) r (%.9g %.9g %.9g %.9g) s (%.9g %.9g %.9g)\n",
                    what, j, (double)x->t.x, (double)x->t.y, (double)x->t.z, (double)x->r.x, (double)x->r.y,
                    (double)x->r.z, (double)x->r.w, (double)x->s.x, (double)x->s.y, (double)x->s.z, (double)y->t.x,
                    (double)y->t.y, (double)y->t.z, (double)y->r.x, (double)y->r.y, (double)y->r.z, (double)y->r.w,
                    (double)y->s.x, (double)y->s.y, (double)y->s.z);
            fail();
        }
    /* padding lanes stay the identity */
    uint32_t last = s->joint_count % 8;
    const float *g = soa->data + (size_t)(soa->group_count - 1) * 80;
    for (uint32_t l = last ? last : 8; l < 8; l++)
        for (uint32_t c = 0; c < 10; c++) assert_true(g[c * 8 + l] == (c == 6 || c >= 7 ? 1.0f : 0.0f));
    free(back);
}

void *sk_test_peak_alloc(void *user, size_t size) {
    sk_test_peak *t = user;
    size_t *h = malloc(sizeof(size_t) * 2 + size);
    if (!h) return NULL;
    h[0] = size;
    t->live += size;
    if (t->live > t->peak) t->peak = t->live;
    return h + 2;
}

void sk_test_peak_free(void *user, void *p, size_t size) {
    sk_test_peak *t = user;
    if (!p) return;
    size_t *h = (size_t *)p - 2;
    if (h[0] != size) t->bad++;
    t->live -= h[0];
    free(h);
}

void *sk_test_peak_realloc(void *user, void *p, size_t old_size, size_t size) {
    void *n = sk_test_peak_alloc(user, size);
    if (n && p) memcpy(n, p, old_size < size ? old_size : size);
    if (n) sk_test_peak_free(user, p, old_size);
    return n;
}

sk_asset *sk_test_load_bvh(const char *dir, const char *name, double scale) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    sk_bvh_options o;
    memset(&o, 0, sizeof o);
    o.scale = scale;
    sk_asset *a = NULL;
    sk_error err = {0};
    if (sk_bvh_load_file(path, &o, &a, &err) != SK_OK) fail_msg("%s", err.message);
    assert_true(a->clip_count >= 1);
    return a;
}
