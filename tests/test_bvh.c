/* The BVH reader (io/bvh.h, docs/bvh.md).
 *  1. Every clip of ../shared/mocap/bvh against forward kinematics written
 *     here, independently of the reader: its own tokenizer, channels read in
 *     file order, rotation matrices composed in double from Euler degrees in
 *     the listed order, the documented root convention (position channels
 *     replace the OFFSET). Joint world positions (end sites included) within
 *     0.01 mm at every 5th frame and the last; clips, frames and positions
 *     counted and asserted.
 *  2. The 7 clips with Blender conversions in ../shared/mocap/glb against
 *     those, read with our glTF reader: BVH loaded with scale 2.54/45 m/unit
 *     (= 0.0564444, see CMU_M_PER_UNIT; 1 for the salsa clip, already in
 *     metres); axes compared as they are
 *     (Blender's importer turns the BVH's Y-up into its Z-up and the glTF
 *     exporter turns it back: the two axis changes cancel, so x, y and z are
 *     the file's); frames matched by index (BVH frame i at i x 0.008333 s,
 *     glTF key i at i/120 s, each sampled exactly at its own key time).
 *  3. Bad inputs (the files in tests/data/bvh): each its error code and message with
 *     the right line number; the hand-made file cut at every byte; a
 *     10,000-deep hierarchy (loads) and one past the joint limit (a clear
 *     SK_ERR_LIMIT with its line), built in memory.
 *  4. A good file with everything unusual (tests/data/bvh/mixed.bvh: two
 *     roots, a root OFFSET that is not zero, positions interleaved with
 *     rotations, a translation channel on a child, 1- and 0-channel joints,
 *     CRLF, a blank line) against the same forward kinematics and closed
 *     forms; the scale option; reading through an sk_file_io.
 * Allocation failure is in tests/test_alloc_failure.c. */
#include "support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
/* The CMU length unit: (1/0.45) x 2.54 cm = 0.0564444... m. The shared
 * READMEs round it to 0.056444; Blender's conversions used the exact value
 * (a least-squares fit of the .glb positions to the BVH's gives 0.056444441
 * on 02_01), and with the rounded one the 02_01 hips would already be 0.017 mm
 * off at frame 0, over the limit. */
#define CMU_M_PER_UNIT (2.54 / 45.0)
#define TOL_M 1e-5 /* 0.01 mm */

/* ---- independent forward kinematics ------------------------------------------- */

typedef struct fk_joint {
    int parent;
    char name[128];
    double off[3];
    int nch, ch[6]; /* 0..2 X/Y/Z position, 3..5 X/Y/Z rotation */
    int first;
} fk_joint;

typedef struct fk_clip {
    fk_joint *j;
    int n, nvals, frames;
    double ft;
    double *vals;
} fk_clip;

static int ch_index(const char *s) {
    static const char *const names[6] = {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"};
    for (int i = 0; i < 6; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

/* Whitespace tokens ("{" and "}" stand alone in the files this reads). */
static bool fk_parse(const char *path, fk_clip *c) {
    size_t size;
    char *text = sk_test_read_file(path, &size);
    if (!text) return false;
    memset(c, 0, sizeof *c);
    int cap = 16;
    c->j = calloc((size_t)cap, sizeof *c->j);
    int cur = -1;
    char *save = NULL;
    const char *ws = " \t\r\n";
    for (char *t = strtok_r(text, ws, &save); t; t = strtok_r(NULL, ws, &save)) {
        if (!strcmp(t, "HIERARCHY") || !strcmp(t, "{")) continue;
        if (!strcmp(t, "ROOT") || !strcmp(t, "JOINT") || !strcmp(t, "End")) {
            bool end = !strcmp(t, "End");
            char *name = strtok_r(NULL, ws, &save);
            if (c->n == cap) c->j = realloc(c->j, (size_t)(cap *= 2) * sizeof *c->j);
            fk_joint *j = &c->j[c->n];
            memset(j, 0, sizeof *j);
            j->parent = !strcmp(t, "ROOT") ? -1 : cur;
            if (end) snprintf(j->name, sizeof j->name, "%s_end", c->j[cur].name);
            else snprintf(j->name, sizeof j->name, "%s", name);
            cur = c->n++;
        } else if (!strcmp(t, "OFFSET")) {
            for (int k = 0; k < 3; k++) c->j[cur].off[k] = strtod(strtok_r(NULL, ws, &save), NULL);
        } else if (!strcmp(t, "CHANNELS")) {
            fk_joint *j = &c->j[cur];
            j->nch = atoi(strtok_r(NULL, ws, &save));
            j->first = c->nvals;
            for (int k = 0; k < j->nch; k++) j->ch[k] = ch_index(strtok_r(NULL, ws, &save));
            c->nvals += j->nch;
        } else if (!strcmp(t, "}")) {
            cur = c->j[cur].parent;
        } else if (!strcmp(t, "MOTION")) {
            strtok_r(NULL, ws, &save); /* Frames: */
            c->frames = atoi(strtok_r(NULL, ws, &save));
            strtok_r(NULL, ws, &save); /* Frame */
            strtok_r(NULL, ws, &save); /* Time: */
            c->ft = strtod(strtok_r(NULL, ws, &save), NULL);
            c->vals = calloc((size_t)c->frames * (size_t)c->nvals + 1, sizeof *c->vals);
            for (size_t k = 0; k < (size_t)c->frames * (size_t)c->nvals; k++) {
                char *v = strtok_r(NULL, ws, &save);
                if (!v) {
                    free(text);
                    return false;
                }
                c->vals[k] = strtod(v, NULL);
            }
            break;
        }
    }
    free(text);
    return c->frames > 0;
}

static void fk_free(fk_clip *c) {
    free(c->j);
    free(c->vals);
}

/* 3x3 row-major times 3x3. */
static void m3_mul(const double a[9], const double b[9], double o[9]) {
    double r[9];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) r[i * 3 + k] = a[i * 3] * b[k] + a[i * 3 + 1] * b[3 + k] + a[i * 3 + 2] * b[6 + k];
    memcpy(o, r, sizeof r);
}

static void axis_matrix(int axis, double deg, double m[9]) {
    double a = deg * M_PI / 180.0, c = cos(a), s = sin(a);
    static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(m, id, sizeof id);
    int p = (axis + 1) % 3, q = (axis + 2) % 3; /* rotation in the (p, q) plane */
    m[p * 3 + p] = c, m[p * 3 + q] = -s;
    m[q * 3 + p] = s, m[q * 3 + q] = c;
}

/* World positions of every joint at frame f (pos: n x 3, in file units). */
static void fk_positions(const fk_clip *c, int f, double *pos) {
    double *rot = malloc((size_t)c->n * 9 * sizeof *rot);
    for (int i = 0; i < c->n; i++) {
        const fk_joint *j = &c->j[i];
        const double *v = c->vals + (size_t)f * (size_t)c->nvals + j->first;
        double r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {j->off[0], j->off[1], j->off[2]};
        for (int k = 0; k < j->nch; k++) {
            if (j->ch[k] < 3) t[j->ch[k]] = v[k]; /* the documented convention: absolute */
            else {
                double a[9];
                axis_matrix(j->ch[k] - 3, v[k], a);
                m3_mul(r, a, r);
            }
        }
        if (j->parent < 0) {
            memcpy(rot + i * 9, r, sizeof r);
            memcpy(pos + i * 3, t, sizeof t);
        } else {
            const double *pr = rot + j->parent * 9, *pp = pos + j->parent * 3;
            m3_mul(pr, r, rot + i * 9);
            for (int k = 0; k < 3; k++) pos[i * 3 + k] = pp[k] + pr[k * 3] * t[0] + pr[k * 3 + 1] * t[1] + pr[k * 3 + 2] * t[2];
        }
    }
    free(rot);
}

/* ---- the library's side ---------------------------------------------------------- */

static void lib_world(const sk_asset *a, double t, sk_mat4 *world) {
    const sk_skeleton *s = a->skeleton;
    sk_transform *l = calloc(s->joint_count, sizeof *l);
    assert_non_null(l);
    if (a->clip_count)
        assert_int_equal(sk_clip_sample(a->clips[0], s, t, SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
    else
        assert_int_equal(sk_pose_rest(s, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
    assert_int_equal(sk_local_to_model(s, SK_POSE_OF(s, l, NULL), NULL, world, s->joint_count, NULL), SK_OK);
    free(l);
}

/* The file's key time for frame f, as the reader stores it. */
static double key_time(double ft, int f) { return (double)(float)((double)f * ft); }

typedef struct fk_stats {
    int frames;
    long positions;
    double worst_m;
} fk_stats;

/* Compares a loaded asset with the independent FK at every 5th frame and the last. */
static void compare_fk(const char *label, const sk_asset *a, const fk_clip *c, double m_per_unit, fk_stats *st) {
    const sk_skeleton *s = a->skeleton;
    assert_int_equal((int)s->joint_count, c->n);
    for (int i = 0; i < c->n; i++) {
        assert_string_equal(s->names[i], c->j[i].name);
        assert_int_equal(s->parents[i], c->j[i].parent);
    }
    assert_int_equal(a->clip_count, 1);
    assert_true(fabs(sk_clip_duration(a->clips[0]) - (c->frames - 1) * c->ft) < 1e-6 * (1 + c->frames * c->ft));
    sk_mat4 *w = calloc((size_t)c->n, sizeof *w);
    double *pos = calloc((size_t)c->n * 3, sizeof *pos);
    double worst = 0;
    for (int f = 0; f < c->frames; f++) {
        if (f % 5 && f != c->frames - 1) continue;
        lib_world(a, key_time(c->ft, f), w);
        fk_positions(c, f, pos);
        for (int i = 0; i < c->n; i++) {
            double d = 0;
            for (int k = 0; k < 3; k++) d += pow((double)w[i].m[12 + k] - pos[i * 3 + k], 2);
            d = sqrt(d) * m_per_unit;
            if (d > worst) worst = d;
            if (d > TOL_M) fprintf(stderr, "%s: frame %d joint %s: %.3g mm apart\n", label, f, c->j[i].name, d * 1e3);
            assert_true(d <= TOL_M);
            st->positions++;
        }
        st->frames++;
    }
    if (worst > st->worst_m) st->worst_m = worst;
    printf("  %-22s %3d joints, %5d frames, worst %.2e mm\n", label, c->n, c->frames, worst * 1e3);
    free(w);
    free(pos);
}

static double m_per_unit_of(const char *name) { return strstr(name, "_scaled") ? 1.0 : CMU_M_PER_UNIT; }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_bvh(const char *dir, char **names, int cap) {
    DIR *d = opendir(dir);
    if (!d) fail_msg("%s: cannot read", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".bvh")) {
            assert_true(n < cap);
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    return n;
}

/* 1. Every shared clip against the independent forward kinematics. */
static void test_shared_fk(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char dir[2048], path[4096];
    snprintf(dir, sizeof dir, "%s/mocap/bvh", shared);
    char *names[64];
    int n = list_bvh(dir, names, 64);
    fk_stats s = {0, 0, 0};
    long frames_total = 0;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        fk_clip c;
        assert_true(fk_parse(path, &c));
        sk_asset *a = NULL;
        sk_error err = {0};
        sk_result r = sk_bvh_load_file(path, NULL, &a, &err);
        if (r != SK_OK) fprintf(stderr, "%s\n", err.message);
        assert_int_equal(r, SK_OK);
        assert_int_equal(sk_asset_validate(a, NULL), SK_OK);
        compare_fk(names[i], a, &c, m_per_unit_of(names[i]), &s);
        frames_total += c.frames;
        sk_asset_destroy(a);
        fk_free(&c);
        free(names[i]);
    }
    printf("shared BVH vs independent FK: %d clips, %ld frames in all, %d of them checked, %ld joint positions, "
           "worst %.2e mm (limit 0.01 mm)\n",
           n, frames_total, s.frames, s.positions, s.worst_m * 1e3);
    assert_int_equal(n, 21);             /* ../shared/mocap/STATS.md */
    assert_int_equal(frames_total, 31930); /* ditto */
    assert_true(s.frames > 6000);
}

/* 2. The Blender conversions. */
static void test_shared_glb(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    static const struct { const char *name; uint32_t joints; int frames; } clips[] = {
        {"02_01", 31, 343},          {"05_06", 31, 885},   {"07_01_fbx2bvh", 38, 317}, {"09_11_fbx2bvh", 38, 166},
        {"131_03", 31, 1102},        {"49_08_fbx2bvh", 38, 576}, {"60_01_scaled", 43, 2242}};
    int nclips = 0, frames_checked = 0;
    long positions = 0;
    double worst_all = 0;
    for (size_t i = 0; i < sizeof clips / sizeof clips[0]; i++) {
        char bp[2048], gp[2048];
        snprintf(bp, sizeof bp, "%s/mocap/bvh/%s.bvh", shared, clips[i].name);
        snprintf(gp, sizeof gp, "%s/mocap/glb/%s.glb", shared, clips[i].name);
        sk_bvh_options bo = {0};
        bo.scale = m_per_unit_of(clips[i].name);
        sk_asset *b = NULL, *g = NULL;
        sk_error err = {0};
        assert_int_equal(sk_bvh_load_file(bp, &bo, &b, &err), SK_OK);
        if (sk_gltf_load_file(gp, NULL, &g, &err) != SK_OK) fail_msg("%s", err.message);
        assert_int_equal(g->clip_count, 1);
        /* BVH joint -> glTF joint by name; end sites have no node there. */
        uint32_t nb = b->skeleton->joint_count, matched = 0;
        int32_t *map = malloc(nb * sizeof *map);
        for (uint32_t j = 0; j < nb; j++) {
            map[j] = sk_skeleton_find(g->skeleton, b->skeleton->names[j]);
            matched += map[j] >= 0;
        }
        assert_int_equal(matched, clips[i].joints);
        fk_clip c; /* for the frame count and frame time as the file says them */
        assert_true(fk_parse(bp, &c));
        assert_int_equal(c.frames, clips[i].frames);
        sk_mat4 *wb = calloc(nb, sizeof *wb), *wg = calloc(g->skeleton->joint_count, sizeof *wg);
        double worst = 0;
        for (int f = 0; f < c.frames; f++) {
            if (f % 5 && f != c.frames - 1) continue;
            lib_world(b, key_time(c.ft, f), wb);
            lib_world(g, (double)(float)(f / 120.0), wg);
            for (uint32_t j = 0; j < nb; j++) {
                if (map[j] < 0) continue;
                double d = 0;
                for (int k = 0; k < 3; k++) d += pow((double)wb[j].m[12 + k] - (double)wg[map[j]].m[12 + k], 2);
                d = sqrt(d);
                if (d > worst) worst = d;
                if (d > TOL_M)
                    fprintf(stderr, "%s: frame %d joint %s: %.4f mm apart\n", clips[i].name, f, b->skeleton->names[j],
                            d * 1e3);
                assert_true(d <= TOL_M);
                positions++;
            }
            frames_checked++;
        }
        printf("  %-16s %2u joints matched by name, %4d frames, worst %.4f mm\n", clips[i].name, matched, c.frames,
               worst * 1e3);
        if (worst > worst_all) worst_all = worst;
        nclips++;
        fk_free(&c);
        free(map), free(wb), free(wg);
        sk_asset_destroy(b);
        sk_asset_destroy(g);
    }
    printf("BVH vs Blender .glb: %d clips, %d frames, %ld joint positions, worst %.4f mm (limit 0.01 mm)\n", nclips,
           frames_checked, positions, worst_all * 1e3);
    assert_int_equal(nclips, 7);
}

/* ---- 3. bad input ---------------------------------------------------------------- */

static sk_result load_data(const char *file, sk_asset **a, sk_error *err) {
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/data/bvh/%s", sk_test_source_dir(), file);
    return sk_bvh_load_file(path, NULL, a, err);
}

static void test_bad_files(void **st) {
    (void)st;
    static const struct { const char *file; sk_result code; const char *msg; } cases[] = {
        {"empty.bvh", SK_ERR_PARSE, ":1: expected HIERARCHY, got the end of the file"},
        {"no_hierarchy.bvh", SK_ERR_PARSE, ":1: expected HIERARCHY, got 'ROOT'"},
        {"truncated_hierarchy.bvh", SK_ERR_PARSE, ":10: expected '}' to close 'Chest' (line 6), got the end of the file"},
        {"no_motion.bvh", SK_ERR_PARSE, ":16: expected MOTION, got the end of the file"},
        {"channels_short.bvh", SK_ERR_PARSE, ":5: CHANNELS 6 lists 3 channel names"},
        {"channels_long.bvh", SK_ERR_PARSE, ":9: CHANNELS 2 lists more channel names ('Yrotation')"},
        {"channels_seven.bvh", SK_ERR_PARSE, ":9: expected a channel count 0..6 after CHANNELS, got '7'"},
        {"channel_name.bvh", SK_ERR_PARSE, ":9: expected a channel name (Xposition, Yposition, Zposition, Xrotation, "
                                           "Yrotation, Zrotation), got 'Wrotation'"},
        {"channel_twice.bvh", SK_ERR_PARSE, ":9: channel Zrotation listed twice"},
        {"offset_short.bvh", SK_ERR_PARSE, ":8: expected OFFSET z (a number), got the end of the line"},
        {"offset_nan.bvh", SK_ERR_PARSE, ":8: expected OFFSET y (a number), got 'nan'"},
        {"offset_huge.bvh", SK_ERR_PARSE, ":8: OFFSET y '1e999' is out of range"},
        {"no_offset.bvh", SK_ERR_PARSE, ":9: expected OFFSET before End"},
        {"no_channels.bvh", SK_ERR_PARSE, ":9: expected CHANNELS before End"},
        {"joint_no_name.bvh", SK_ERR_PARSE, ":6: expected a joint name after JOINT"},
        {"brace_missing.bvh", SK_ERR_PARSE, ":7: expected '{', got 'OFFSET'"},
        {"unknown_keyword.bvh", SK_ERR_PARSE, ":9: expected OFFSET, CHANNELS, JOINT, End Site or '}', got 'CHANNEL'"},
        {"end_site_channels.bvh", SK_ERR_PARSE, ":12: unexpected 'CHANNELS' after OFFSET x y z"},
        {"frames_missing.bvh", SK_ERR_PARSE, ":17: expected 'Frames:', got 'Frame:'"},
        {"frames_negative.bvh", SK_ERR_PARSE, ":17: the frame count must be a whole number >= 0"},
        {"frame_time_zero.bvh", SK_ERR_PARSE, ":18: the frame time must be positive"},
        {"frame_time_tiny.bvh", SK_ERR_PARSE, ":18: a frame time of 1e-88 s puts frames 0 and 1 at one time in float32 "
                                              "seconds (keys need increasing times)"},
        {"value_text.bvh", SK_ERR_PARSE, ":20: frame 1, value 5 (Hips Xrotation): expected a finite number, got 'abc'"},
        {"value_inf.bvh", SK_ERR_PARSE, ":20: frame 1, value 8 (Chest Xrotation): expected a finite number, got 'inf'"},
        {"value_huge.bvh", SK_ERR_PARSE, ":20: frame 1, value 9 (Chest Yrotation): expected a finite number, got '1e999'"},
        {"frame_short.bvh", SK_ERR_PARSE, ":20: frame 1 has 8 values, expected 9 (the hierarchy's channels)"},
        {"frame_long.bvh", SK_ERR_PARSE, ":20: frame 1 has 10 values, expected 9 (the hierarchy's channels)"},
        {"truncated_motion.bvh", SK_ERR_PARSE, ":20: the file ends after 1 of 2 frames (Frames: at line 17)"},
        {"truncated_short.bvh", SK_ERR_PARSE, ":17: Frames: 2 of 9 values need at least 35 bytes, the file has 19 "
                                              "left (truncated?)"},
        {"frames_too_many.bvh", SK_ERR_PARSE, ":17: Frames: 100000 of 9 values need at least 1799999 bytes, the file "
                                              "has 43 left (truncated?)"},
        {"extra_frame.bvh", SK_ERR_PARSE, ":21: more frame data than 'Frames: 2' (line 17) declares"},
        {"does_not_exist.bvh", SK_ERR_IO, "does_not_exist.bvh: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sk_asset *a = NULL;
        sk_error err = {0};
        sk_result r = load_data(cases[i].file, &a, &err);
        printf("  %-24s %s: %s\n", cases[i].file, sk_result_string(r), err.message);
        assert_null(a);
        assert_int_equal(r, cases[i].code);
        /* the message names the file once, first, then the line */
        const char *base = strstr(err.message, cases[i].file);
        assert_non_null(base);
        if (!strstr(err.message, cases[i].msg)) fail_msg("%s: expected '%s' in '%s'", cases[i].file, cases[i].msg, err.message);
        assert_null(strstr(base + 1, cases[i].file));
    }
    printf("%zu bad files: each rejected with its line\n", sizeof cases / sizeof cases[0]);
    sk_asset *a = NULL;
    assert_int_equal(load_data("base.bvh", &a, NULL), SK_OK);
    sk_asset_destroy(a);
}

/* The base file cut at every byte: a parse error naming a line, or (cut inside
 * or after the last number) a load; never a crash or a read past the cut. */
static void test_truncated_everywhere(void **st) {
    (void)st;
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/data/bvh/base.bvh", sk_test_source_dir());
    size_t size;
    char *text = sk_test_read_file(path, &size);
    assert_non_null(text);
    const char *last = strrchr(text, ' '); /* before the last number of the last frame */
    size_t loads = 0, errors = 0;
    for (size_t cut = 0; cut < size; cut++) {
        char *copy = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees any read past it */
        memcpy(copy, text, cut);
        sk_asset *a = NULL;
        sk_error err = {0};
        sk_result r = sk_bvh_load_memory(copy, cut, "cut.bvh", NULL, &a, &err);
        if (r == SK_OK) {
            assert_true(cut > (size_t)(last - text));
            loads++;
            sk_asset_destroy(a);
        } else {
            assert_int_equal(r, SK_ERR_PARSE);
            assert_null(a);
            assert_memory_equal(err.message, "cut.bvh:", 8);
            int line = atoi(err.message + 8);
            assert_true(line >= 1 && line <= 21);
            errors++;
        }
        free(copy);
    }
    printf("base.bvh cut at each of %zu bytes: %zu parse errors with a line, %zu loads (cut in or after the last "
           "number)\n",
           size, errors, loads);
    assert_int_equal(loads, size - (size_t)(last - text) - 2);
    /* Every byte replaced in turn by each of a few structural characters:
     * a load or an error naming a line, never a crash. */
    static const char subst[] = {'{', '}', '\n', ' ', 'x', '9', '-', '.', 'e', '\0'};
    size_t runs = 0, ok = 0;
    for (size_t at = 0; at < size; at++)
        for (size_t k = 0; k < sizeof subst; k++) {
            char *copy = malloc(size);
            memcpy(copy, text, size);
            copy[at] = subst[k];
            sk_asset *a = NULL;
            sk_error err = {0};
            sk_result r = sk_bvh_load_memory(copy, size, "flip.bvh", NULL, &a, &err);
            if (r == SK_OK) {
                assert_int_equal(sk_asset_validate(a, NULL), SK_OK);
                ok++;
                sk_asset_destroy(a);
            } else {
                assert_true(r == SK_ERR_PARSE || r == SK_ERR_LIMIT);
                assert_memory_equal(err.message, "flip.bvh:", 9);
                assert_true(atoi(err.message + 9) >= 1);
            }
            runs++;
            free(copy);
        }
    printf("base.bvh with each byte replaced by each of %zu characters: %zu loads, %zu errors with a line\n",
           sizeof subst, ok, runs - ok);
    free(text);
}

/* A chain of depth joints (ROOT + JOINTs + End Site), each 1 unit above its
 * parent and turned 0.01 degrees about Z per frame index. */
static char *deep_chain(uint32_t depth, size_t *size) {
    size_t cap = (size_t)depth * 96 + 256, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s + n, "HIERARCHY\nROOT j0\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n");
    for (uint32_t i = 1; i < depth - 1; i++)
        n += (size_t)sprintf(s + n, "JOINT j%u\n{\nOFFSET 0 1 0\nCHANNELS 1 Zrotation\n", i);
    n += (size_t)sprintf(s + n, "End Site\n{\nOFFSET 0 1 0\n}\n");
    for (uint32_t i = 1; i < depth; i++) n += (size_t)sprintf(s + n, "}\n");
    n += (size_t)sprintf(s + n, "MOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0");
    for (uint32_t i = 1; i < depth - 1; i++) n += (size_t)sprintf(s + n, " 0");
    n += (size_t)sprintf(s + n, "\n0 0 0");
    for (uint32_t i = 1; i < depth - 1; i++) n += (size_t)sprintf(s + n, " 0.01");
    n += (size_t)sprintf(s + n, "\n");
    assert_true(n < cap);
    *size = n;
    return s;
}

static void test_deep(void **st) {
    (void)st;
    size_t size;
    const uint32_t depth = 10000;
    char *text = deep_chain(depth, &size);
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_bvh_load_memory(text, size, "deep.bvh", NULL, &a, &err);
    if (r != SK_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    assert_int_equal(a->skeleton->joint_count, depth);
    assert_string_equal(a->skeleton->names[depth - 1], "j9998_end");
    /* Frame 1's local rotations: 0.01 degrees about Z each (what the reader made). */
    sk_transform *l = calloc(depth, sizeof *l);
    assert_int_equal(sk_clip_sample(a->clips[0], a->skeleton, 0.5, SK_LOOP_CLAMP, SK_POSE_OF(a->skeleton, l, NULL), NULL),
                     SK_OK);
    const double h = 0.005 * M_PI / 180.0;
    for (uint32_t i = 1; i < depth - 1; i++)
        assert_true(l[i].r.x == 0 && l[i].r.y == 0 && fabs(l[i].r.z - sin(h)) < 1e-9 && fabs(l[i].r.w - cos(h)) < 1e-7);
    free(l);
    sk_mat4 *w = calloc(depth, sizeof *w);
    lib_world(a, 0.0, w);
    assert_true(fabs(w[depth - 1].m[13] - (depth - 1)) < 1e-3); /* straight up */
    /* Frame 1: joint i is turned i x 0.01 degrees in all; the tip is on an arc (closed form in double). */
    lib_world(a, 0.5, w);
    double x = 0, y = 0;
    for (uint32_t i = 1; i < depth; i++) {
        double ang = (double)(i - 1) * 0.01 * M_PI / 180.0; /* the parent's accumulated turn */
        x += -sin(ang), y += cos(ang);
    }
    double d = hypot(w[depth - 1].m[12] - x, w[depth - 1].m[13] - y);
    printf("10,000-deep chain: loads, %u joints; tip at frame 1 within %.3g units of the closed form (%.1f, %.1f)\n",
           a->skeleton->joint_count, d, x, y);
    /* float32 world matrices chained 10,000 times (sk_local_to_model): the
     * rounding of each product adds up along the chain; 2e-4 of its length. */
    assert_true(d < 2.0);
    free(w);
    sk_asset_destroy(a);
    free(text);
    /* Past the joint limit: SK_ERR_LIMIT at the first joint too many, with its line. */
    text = deep_chain(SK_BVH_MAX_JOINTS + 10, &size);
    r = sk_bvh_load_memory(text, size, "deeper.bvh", NULL, &a, &err);
    printf("%u-deep chain: %s: %s\n", SK_BVH_MAX_JOINTS + 10, sk_result_string(r), err.message);
    assert_int_equal(r, SK_ERR_LIMIT);
    assert_null(a);
    char want[128];
    snprintf(want, sizeof want, "deeper.bvh:%u: more than %u joints", 6 + 4 * (SK_BVH_MAX_JOINTS - 1), SK_BVH_MAX_JOINTS);
    if (!strstr(err.message, want)) fail_msg("expected '%s' in '%s'", want, err.message);
    /* A smaller limit through the options. */
    sk_bvh_options o = {0};
    o.max_joints = 100;
    r = sk_bvh_load_memory(text, size, "deeper.bvh", &o, &a, &err);
    assert_int_equal(r, SK_ERR_LIMIT);
    assert_non_null(strstr(err.message, "deeper.bvh:402: more than 100 joints"));
    free(text);
}

/* ---- 4. everything unusual ------------------------------------------------------ */

static void test_mixed(void **st) {
    (void)st;
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/data/bvh/mixed.bvh", sk_test_source_dir());
    sk_asset *a = NULL;
    sk_error err = {0};
    sk_result r = sk_bvh_load_file(path, NULL, &a, &err);
    if (r != SK_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, SK_OK);
    assert_int_equal(sk_asset_validate(a, NULL), SK_OK);
    const sk_skeleton *s = a->skeleton;
    static const char *const names[] = {"Body", "Arm", "Hand", "Hand_end", "Tail", "Tail_end", "Prop", "Prop_end"};
    static const int parents[] = {-1, 0, 1, 2, 0, 4, -1, 6};
    assert_int_equal(s->joint_count, 8);
    for (int i = 0; i < 8; i++) {
        assert_string_equal(s->names[i], names[i]);
        assert_int_equal(s->parents[i], parents[i]);
    }
    assert_int_equal(a->scene_count, 1);
    assert_int_equal(a->scenes[0].root_count, 2);
    assert_string_equal(sk_clip_name(a->clips[0]), "mixed");
    assert_true(fabs(sk_clip_duration(a->clips[0]) - 0.08) < 1e-7);
    /* Rest = OFFSET. */
    assert_true(s->rest[0].t.x == 1 && s->rest[0].t.y == 2 && s->rest[0].t.z == 3);
    /* Tracks: Body T+R, Arm T+R, Hand R, Prop T. */
    assert_int_equal(sk_clip_track_count(a->clips[0]), 6);
    /* The root convention: the root's translation is its channel values (20, 40, 60), not OFFSET + values. */
    sk_transform l[8];
    assert_int_equal(sk_clip_sample(a->clips[0], s, 0.0, SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
    assert_true(l[0].t.x == 20 && l[0].t.y == 40 && l[0].t.z == 60);
    /* A lone Yposition on Arm: x and z keep the OFFSET's. */
    assert_true(l[1].t.x == 4 && l[1].t.y == 70 && l[1].t.z == 0);
    assert_true(l[6].t.x == 1.5f && l[6].t.y == 3.5f && l[6].t.z == 2.5f);
    /* Hand: Zrotation 110 -> (0, 0, sin 55, cos 55). */
    assert_true(fabs(l[2].r.z - sin(55 * M_PI / 180)) < 1e-7 && fabs(l[2].r.w - cos(55 * M_PI / 180)) < 1e-7);
    /* Body: Zrotation 10, Yrotation 30, Xrotation 50 composed in that order: Rz * Ry * Rx. */
    {
        double rz[9], ry[9], rx[9], m[9];
        axis_matrix(2, 10, rz), axis_matrix(1, 30, ry), axis_matrix(0, 50, rx);
        m3_mul(rz, ry, m), m3_mul(m, rx, m);
        sk_mat4 q = sk_mat4_from_transform(&l[0]);
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) assert_true(fabs(q.m[k * 4 + i] - m[i * 3 + k]) < 1e-6);
    }
    /* Everything against the independent FK, every frame. */
    fk_clip c;
    assert_true(fk_parse(path, &c));
    fk_stats stats = {0, 0, 0};
    compare_fk("mixed.bvh", a, &c, 1e-3 /* checked as if mm: 0.01 units */, &stats);
    /* Scale: offsets and positions times 0.5, rotations the same. */
    sk_bvh_options o = {0};
    o.scale = 0.5;
    sk_asset *b = NULL;
    assert_int_equal(sk_bvh_load_file(path, &o, &b, NULL), SK_OK);
    sk_transform lb[8];
    for (int f = 0; f < 3; f++) {
        assert_int_equal(sk_clip_sample(a->clips[0], s, f * 0.04, SK_LOOP_CLAMP, SK_POSE_OF(s, l, NULL), NULL), SK_OK);
        assert_int_equal(sk_clip_sample(b->clips[0], b->skeleton, f * 0.04, SK_LOOP_CLAMP,
                                        SK_POSE_OF(b->skeleton, lb, NULL), NULL),
                         SK_OK);
        for (int j = 0; j < 8; j++) {
            assert_true(lb[j].t.x == 0.5f * l[j].t.x && lb[j].t.y == 0.5f * l[j].t.y && lb[j].t.z == 0.5f * l[j].t.z);
            assert_memory_equal(&lb[j].r, &l[j].r, sizeof l[j].r);
        }
    }
    sk_asset_destroy(b);
    o.scale = -1;
    assert_int_equal(sk_bvh_load_file(path, &o, &b, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(b);
    printf("mixed.bvh: names, parents, root convention, channel orders, scale: ok (%s)\n", err.message);
    fk_free(&c);
    sk_asset_destroy(a);
}

/* Files come through sk_file_io: a callback serving one file from memory. */
typedef struct mem_file { const char *path, *data; size_t size; int reads; } mem_file;

/* Blank frames (every channel 0) kept or filled (sk_bvh_options.blank),
 * and the warning that reports them, against closed forms written here: a
 * run between recorded frames a and b takes frame f the translation
 * lerp(a, b, (f - a) / (b - a)) and, for rotations about one axis, the angle
 * in between (the shortest way); a run at the start takes the first recorded
 * frame, at the end the last; recorded frames are the same keys; a file of
 * blank frames only is kept; consecutive rotation keys stay in one
 * hemisphere. */
typedef struct warn_log {
    char text[4][600];
    int n;
} warn_log;
static void log_warning(void *user, const char *message) {
    warn_log *w = user;
    if (w->n < 4) snprintf(w->text[w->n], sizeof w->text[0], "%s", message);
    w->n++;
}
/* The rotation key of track path of joint j at frame f, and the translation. */
static void key_of(const sk_asset *a, uint32_t joint, sk_track_path path, uint32_t f, float *v) {
    const sk_clip *c = a->clips[0];
    sk_track_info ti;
    for (uint32_t k = 0; k < sk_clip_track_count(c); k++) {
        assert_true(sk_clip_track_info(c, k, &ti));
        if (ti.joint != joint || ti.path != path) continue;
        float all[64 * 4];
        assert_true(ti.key_count <= 64);
        assert_true(sk_clip_track_keys(c, k, NULL, all));
        memcpy(v, all + (size_t)f * ti.width, ti.width * sizeof *v);
        return;
    }
    fail_msg("no track for joint %u", joint);
}
static void test_blank_frames(void **st) {
    (void)st;
    /* frames 0, 2-3, 6-7 blank; the child turns about Z by 170, -170 and 60 degrees at frames 1, 4,
     * 5 (from 170 to -170 the short way is through 180: its quaternions change sign on the way, and
     * the keys must not); the root moves and turns about Y */
    const char *text = "HIERARCHY\nROOT hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       " JOINT leg\n {\n  OFFSET 0 -1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n}\n"
                       "MOTION\nFrames: 8\nFrame Time: 0.1\n"
                       "0 0 0 0 0 0 0 0 0\n"
                       "1 2 3 0 0 20 170 0 0\n"
                       "0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0\n"
                       "4 5 9 0 0 50 -170 0 0\n"
                       "5 5 9 0 0 60 60 0 0\n"
                       "0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0\n";
    const double deg = 3.14159265358979323846 / 180.0;
    sk_asset *keep = NULL, *fill = NULL;
    sk_error err = {0};
    warn_log wk = {0}, wf = {0};
    sk_bvh_options o = {0};
    o.warning = log_warning, o.warning_user = &wk;
    assert_int_equal(sk_bvh_load_memory(text, strlen(text), "blank.bvh", &o, &keep, &err), SK_OK);
    o.blank = SK_BVH_BLANK_FILL, o.warning_user = &wf;
    assert_int_equal(sk_bvh_load_memory(text, strlen(text), "blank.bvh", &o, &fill, &err), SK_OK);
    assert_int_equal(wk.n, 1);
    assert_int_equal(wf.n, 1);
    assert_non_null(strstr(wk.text[0], "blank.bvh: 5 of 8 frames blank"));
    assert_non_null(strstr(wk.text[0], ": 0, 2-3, 6-7; kept"));
    assert_non_null(strstr(wf.text[0], ": 0, 2-3, 6-7; filled"));
    float t[4], r[4], tk[4], rk[4];
    /* kept: the blank frames as written (the origin, the identity) */
    key_of(keep, 0, SK_PATH_TRANSLATION, 2, t);
    assert_true(t[0] == 0 && t[1] == 0 && t[2] == 0);
    key_of(keep, 1, SK_PATH_ROTATION, 6, r);
    assert_true(r[0] == 0 && r[1] == 0 && r[2] == 0 && fabsf(r[3]) == 1);
    /* filled: recorded frames unchanged, runs from their neighbours */
    uint32_t checked = 0;
    for (uint32_t f = 0; f < 8; f++) {
        bool recorded = f == 1 || f == 4 || f == 5;
        uint32_t src = f == 0 ? 1 : f >= 6 ? 5 : f;
        for (uint32_t j = 0; j < 2; j++) {
            key_of(fill, j, SK_PATH_ROTATION, f, r);
            key_of(keep, j, SK_PATH_ROTATION, src, rk);
            if (recorded || f == 0 || f >= 6) { /* a recorded frame, or the run's one neighbour: its rotation */
                double d = fabs((double)r[0] * rk[0] + (double)r[1] * rk[1] + (double)r[2] * rk[2] + (double)r[3] * rk[3]);
                assert_true(d > 1 - 1e-6);
                checked++;
                continue;
            }
            /* frames 2, 3: a third and two thirds of the way from frame 1 to 4 */
            double u = (f - 1.0) / 3.0;
            double a1 = j ? 170 : 20, a4 = j ? 190 : 50, ang = (a1 + (a4 - a1) * u) * deg;
            double want_s = sin(ang / 2), want_w = cos(ang / 2); /* the leg about Z, the hips about Y */
            assert_true(fabs(fabs((double)r[j ? 2 : 1]) - fabs(want_s)) < 2e-6 && fabs(fabs((double)r[3]) - fabs(want_w)) < 2e-6);
            checked++;
        }
        key_of(fill, 0, SK_PATH_TRANSLATION, f, t);
        key_of(keep, 0, SK_PATH_TRANSLATION, src, tk);
        if (f == 2 || f == 3) {
            double u = (f - 1.0) / 3.0, a[3] = {1, 2, 3}, b[3] = {4, 5, 9};
            for (int c = 0; c < 3; c++) assert_true(fabs(t[c] - (a[c] + (b[c] - a[c]) * u)) < 1e-6);
        } else
            assert_memory_equal(t, tk, sizeof t[0] * 3);
        checked++;
    }
    assert_int_equal(checked, 8 * 3);
    /* consecutive rotation keys in one hemisphere */
    for (uint32_t f = 1; f < 8; f++)
        for (uint32_t j = 0; j < 2; j++) {
            key_of(fill, j, SK_PATH_ROTATION, f - 1, rk);
            key_of(fill, j, SK_PATH_ROTATION, f, r);
            assert_true((double)r[0] * rk[0] + (double)r[1] * rk[1] + (double)r[2] * rk[2] + (double)r[3] * rk[3] >= 0);
        }
    sk_asset_destroy(keep), sk_asset_destroy(fill);
    /* every frame blank: kept, and said */
    const char *none = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n End Site\n {\n  OFFSET 0 1 0\n }\n}\n"
                       "MOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0\n0 0 0\n";
    warn_log wn = {0};
    o.warning_user = &wn;
    assert_int_equal(sk_bvh_load_memory(none, strlen(none), "none.bvh", &o, &fill, &err), SK_OK);
    assert_int_equal(wn.n, 1);
    assert_non_null(strstr(wn.text[0], "2 of 2 frames blank"));
    assert_non_null(strstr(wn.text[0], "every frame is blank"));
    key_of(fill, 0, SK_PATH_ROTATION, 1, r);
    assert_true(r[0] == 0 && r[1] == 0 && r[2] == 0 && fabsf(r[3]) == 1);
    sk_asset_destroy(fill);
    /* no blank frame: no warning; a blank mode that is not one: an error naming it */
    const char *full = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 1 Zrotation\n End Site\n {\n  OFFSET 0 1 0\n }\n}\n"
                       "MOTION\nFrames: 2\nFrame Time: 0.1\n1\n2\n";
    warn_log w0 = {0};
    o.warning_user = &w0;
    assert_int_equal(sk_bvh_load_memory(full, strlen(full), "full.bvh", &o, &fill, &err), SK_OK);
    assert_int_equal(w0.n, 0);
    sk_asset_destroy(fill);
    o.blank = 2;
    fill = NULL;
    assert_int_equal(sk_bvh_load_memory(full, strlen(full), "full.bvh", &o, &fill, &err), SK_ERR_INVALID_ARGUMENT);
    assert_null(fill);
    assert_non_null(strstr(err.message, "full.bvh: blank 2"));
}

static sk_result mem_read(void *user, const char *path, uint64_t max_size, const sk_allocator *alloc, void **data,
                          size_t *size, sk_error *err) {
    mem_file *m = user;
    m->reads++;
    if (strcmp(path, m->path)) return sk_error_set(err, SK_ERR_IO, "%s: not found", path);
    if (m->size > max_size) return sk_error_set(err, SK_ERR_LIMIT, "%s: too large", path);
    *data = sk_alloc(alloc, m->size);
    if (!*data) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    memcpy(*data, m->data, m->size);
    *size = m->size;
    return SK_OK;
}

static void test_file_io(void **st) {
    (void)st;
    char path[2048];
    snprintf(path, sizeof path, "%s/tests/data/bvh/base.bvh", sk_test_source_dir());
    size_t size;
    char *text = sk_test_read_file(path, &size);
    mem_file m = {"virtual/walk.bvh", text, size, 0};
    sk_bvh_options o = {0};
    o.file_io.read = mem_read;
    o.file_io.user = &m;
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_bvh_load_file("virtual/walk.bvh", &o, &a, &err), SK_OK);
    assert_int_equal(m.reads, 1);
    assert_string_equal(sk_clip_name(a->clips[0]), "walk");
    sk_asset_destroy(a);
    assert_int_equal(sk_bvh_load_file("virtual/other.bvh", &o, &a, &err), SK_ERR_IO);
    o.max_file_bytes = 10;
    assert_int_equal(sk_bvh_load_file("virtual/walk.bvh", &o, &a, &err), SK_ERR_LIMIT);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_fk),        cmocka_unit_test(test_shared_glb), cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_truncated_everywhere), cmocka_unit_test(test_deep), cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_file_io),        cmocka_unit_test(test_blank_frames),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
