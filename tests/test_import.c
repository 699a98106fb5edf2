/* The importer (libskelanim_import) against the glTF reader on the same
 * models: FBX and COLLADA files made by other tools from the shared glTF
 * models (tests/data/import/README.md). For each file of a named list:
 * joints matched by name, posed by the clips at several times, world
 * positions fitted to the glTF reader's by one similarity transform (Horn's
 * closed form, written here) and compared within 1% of the model's size;
 * skinned (or node-placed) vertices compared as point sets after the same
 * transform, both ways (every vertex of one near a vertex of the other).
 * Files assimp is known to fail on: a named list, each refused with a clear
 * error. Corrupt and truncated FBX bytes: an error, never a crash. */
#include "support.h"

#include "skelanim/import/import.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct ref_case {
    const char *file;      /* tests/data/import/ */
    const char *model;     /* ../shared/assets/gltf/MODEL/MODEL.glb or .gltf */
    const char *gltf_file;
    /* ';'-separated clip names of the imported file sampled together; NAME@S:
     * the clip starts S seconds into the glTF clip (Blender's FBX exporter
     * starts every action at 0: BoxAnimated's inner box turns from 1.25 s,
     * CesiumMan's and RiggedSimple's keys start at 1/24 s). */
    const char *clips;
    double time_scale;     /* imported time = glTF time * this */
    /* The span of glTF time compared: Blender bakes up to the last whole
     * frame (BoxAnimated: 3.667 s of 3.708 s). */
    double glb_seconds;
    /* Explicit glTF times instead of TIMES even steps over glb_seconds:
     * Blender's glTF importer turns BoxAnimated's single 180-degree rotation
     * key pair into per-component linear curves (nlerp, not glTF's slerp),
     * equal to slerp only at the keys and halfway between them. */
    double times[6];
    /* Blender 3.4's COLLADA skins (Z_UP files): assimp reads the joints and
     * their motion right (within 0.04%) but the skinned vertices land 30-80%
     * of the model's size away from the glTF reader's, in all four skinned
     * models (BoxAnimated, unskinned, agrees to 1e-5%; assimp's own Y_UP
     * COLLADA export of the same models agrees too). A known difference
     * (docs/import.md), asserted as such so that a change shows. */
    bool vertices_differ;
    bool joints_on_a_line; /* SimpleSkin, RiggedSimple: see the fit below */
} ref_case;

/* Time scale 1000: assimp's COLLADA exporter writes its key times in its
 * glTF importer's ticks (milliseconds) where COLLADA has seconds (a defect of
 * the file, docs/import.md); the importer keeps keys as stored. */
static const ref_case cases[] = {
    {"BoxAnimated.blender.fbx", "BoxAnimated", "BoxAnimated.glb", "Node_0|Anim_0_Node_0;inner_box|Anim_0_inner_box@1.25",
     1, 3.6, {0, 1.25, 1.875, 2.5, 3.0, 3.6}, false, false},
    {"BoxAnimated.blender.dae", "BoxAnimated", "BoxAnimated.glb", "Node_0", 1, 3.6, {0, 1.25, 1.875, 2.5, 3.0, 3.6}, false, false},
    {"CesiumMan.blender.fbx", "CesiumMan", "CesiumMan.glb", "Armature|Anim_0_Armature@0.0416667", 1, 1.9, {0}, false, false},
    {"CesiumMan.blender.dae", "CesiumMan", "CesiumMan.glb", "Armature_Armature", 1, 1.9, {0}, true, false},
    {"RiggedFigure.blender.fbx", "RiggedFigure", "RiggedFigure.glb", "Armature|Anim_0_Armature", 1, 1.25, {0}, false, false},
    {"RiggedFigure.blender.dae", "RiggedFigure", "RiggedFigure.glb", "Armature_Armature", 1, 1.25, {0}, true, false},
    {"RiggedFigure.assimp.dae", "RiggedFigure", "RiggedFigure.glb", "", 1000, 1.25, {0}, false, false},
    {"RiggedSimple.blender.fbx", "RiggedSimple", "RiggedSimple.glb", "Armature|Anim_0_Armature@0.0416667", 1, 2.0, {0}, false, true},
    {"RiggedSimple.blender.dae", "RiggedSimple", "RiggedSimple.glb", "Armature", 1, 2.0, {0}, true, true},
    {"RiggedSimple.assimp.dae", "RiggedSimple", "RiggedSimple.glb", "", 1000, 2.0, {0}, false, true},
    {"SimpleSkin.blender.fbx", "SimpleSkin", "SimpleSkin.gltf", "Armature|Anim_0_Armature", 1, 5.5, {0}, false, true},
    {"SimpleSkin.blender.dae", "SimpleSkin", "SimpleSkin.gltf", "Armature", 1, 5.5, {0}, true, true},
};

/* assimp 5.2 cannot read these back (docs/import.md, "Known failures"). */
static const struct {
    const char *file, *why;
} known_failures[] = {
    {"RiggedSimple.assimp.fbx", "FBX-Tokenize"},         /* its own binary FBX */
    {"RiggedSimple.assimp.fbxa.fbx", "Validation failed"}, /* ASCII FBX key times in FBX time units */
    {"BoxAnimated.assimp.fbxa.fbx", "Validation failed"},
    {"BoxAnimated.assimp.dae", "Unable to resolve library reference"},
};

#define TIMES 6

static char *data_path(char *out, size_t cap, const char *file) {
    char dir[1024];
    sk_test_path(dir, sizeof dir, sk_test_source_dir(), "tests/data/import");
    sk_test_path(out, cap, dir, file);
    return out;
}

static void warn_count(void *user, const char *msg) {
    (void)msg;
    (*(int *)user)++;
}

/* ---- Horn's closed-form similarity: a ~= s R b + t ---------------------------- */

typedef struct simil {
    double s, R[3][3], t[3];
} simil;

static void jacobi4(double A[4][4], double V[4][4]) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) V[i][j] = i == j;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0;
        for (int p = 0; p < 4; p++)
            for (int q = p + 1; q < 4; q++) off += A[p][q] * A[p][q];
        if (off < 1e-30) break;
        for (int p = 0; p < 4; p++)
            for (int q = p + 1; q < 4; q++) {
                if (fabs(A[p][q]) < 1e-300) continue;
                double th = (A[q][q] - A[p][p]) / (2 * A[p][q]);
                double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < 4; k++) {
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - s * akq;
                    A[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 4; k++) {
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - s * aqk;
                    A[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 4; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - s * vkq;
                    V[k][q] = s * vkp + c * vkq;
                }
            }
    }
}

static simil fit(const double *a, const double *b, size_t n) {
    double ca[3] = {0}, cb[3] = {0};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) ca[k] += a[i * 3 + k] / (double)n, cb[k] += b[i * 3 + k] / (double)n;
    double S[3][3] = {{0}}, bb = 0;
    for (size_t i = 0; i < n; i++) {
        double x[3], y[3];
        for (int k = 0; k < 3; k++) x[k] = b[i * 3 + k] - cb[k], y[k] = a[i * 3 + k] - ca[k];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) S[r][c] += x[r] * y[c];
        bb += x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    }
    double N[4][4] = {
        {S[0][0] + S[1][1] + S[2][2], S[1][2] - S[2][1], S[2][0] - S[0][2], S[0][1] - S[1][0]},
        {S[1][2] - S[2][1], S[0][0] - S[1][1] - S[2][2], S[0][1] + S[1][0], S[2][0] + S[0][2]},
        {S[2][0] - S[0][2], S[0][1] + S[1][0], -S[0][0] + S[1][1] - S[2][2], S[1][2] + S[2][1]},
        {S[0][1] - S[1][0], S[2][0] + S[0][2], S[1][2] + S[2][1], -S[0][0] - S[1][1] + S[2][2]}};
    double V[4][4];
    jacobi4(N, V);
    int best = 0;
    for (int i = 1; i < 4; i++)
        if (N[i][i] > N[best][best]) best = i;
    double w = V[0][best], x = V[1][best], y = V[2][best], z = V[3][best];
    simil f;
    f.R[0][0] = 1 - 2 * (y * y + z * z), f.R[0][1] = 2 * (x * y - w * z), f.R[0][2] = 2 * (x * z + w * y);
    f.R[1][0] = 2 * (x * y + w * z), f.R[1][1] = 1 - 2 * (x * x + z * z), f.R[1][2] = 2 * (y * z - w * x);
    f.R[2][0] = 2 * (x * z - w * y), f.R[2][1] = 2 * (y * z + w * x), f.R[2][2] = 1 - 2 * (x * x + y * y);
    double num = 0;
    for (size_t i = 0; i < n; i++) {
        double xb[3], ya[3];
        for (int k = 0; k < 3; k++) xb[k] = b[i * 3 + k] - cb[k], ya[k] = a[i * 3 + k] - ca[k];
        for (int r = 0; r < 3; r++) num += ya[r] * (f.R[r][0] * xb[0] + f.R[r][1] * xb[1] + f.R[r][2] * xb[2]);
    }
    f.s = bb > 0 ? num / bb : 1;
    for (int r = 0; r < 3; r++) f.t[r] = ca[r] - f.s * (f.R[r][0] * cb[0] + f.R[r][1] * cb[1] + f.R[r][2] * cb[2]);
    return f;
}

static void apply(const simil *f, const double *b, double *out) {
    for (int r = 0; r < 3; r++) out[r] = f->s * (f->R[r][0] * b[0] + f->R[r][1] * b[1] + f->R[r][2] * b[2]) + f->t[r];
}

static double dist(const double *a, const double *b) {
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---- Posing and skinning ------------------------------------------------------- */

/* World matrices of asset a at time t: clips (by name; "" = clip 0) sampled
 * together onto the rest pose, clamped. */
static void pose_at(const sk_asset *a, const char *clips, double t, sk_mat4 *model) {
    const sk_skeleton *s = a->skeleton;
    sk_transform *local = calloc(s->joint_count, sizeof *local);
    float *wts = s->weight_total ? calloc(s->weight_total, sizeof *wts) : NULL;
    assert_non_null(local);
    sk_pose *p = SK_POSE_OF(s, local, wts);
    sk_error err = {0};
    assert_int_equal(sk_pose_rest(s, p, &err), SK_OK);
    char list[512];
    snprintf(list, sizeof list, "%s", clips);
    int used = 0;
    char *save = NULL;
    for (char *name = strtok_r(list, ";", &save); name || !used; name = strtok_r(NULL, ";", &save)) {
        double start = 0.0;
        char *at = name ? strchr(name, '@') : NULL;
        if (at) *at = 0, start = atof(at + 1);
        int32_t ci = name ? sk_asset_find_clip(a, name) : 0;
        if (!name && a->clip_count == 0) break;
        if (ci < 0) fail_msg("no clip '%s' (the file has %u)", name, a->clip_count);
        assert_int_equal(sk_clip_sample_tracks(a->clips[ci], s, t - start, SK_LOOP_CLAMP, NULL, 0, p, &err), SK_OK);
        used++;
        if (!name) break;
    }
    assert_int_equal(sk_local_to_model(s, p, NULL, model, s->joint_count, &err), SK_OK);
    free(local);
    free(wts);
}

/* Every drawn vertex of a in world space (skinned with its node's skin, else
 * placed by its node). Returns the count; *out malloc'd (3 doubles each). */
static size_t vertices(const sk_asset *a, const sk_mat4 *model, double **out) {
    size_t n = 0, cap = 1024;
    double *v = malloc(cap * 3 * sizeof *v);
    assert_non_null(v);
    for (uint32_t j = 0; j < a->skeleton->joint_count; j++) {
        int32_t mi = a->joint_mesh[j];
        if (mi < 0) continue;
        const sk_mesh *m = &a->meshes[mi];
        const sk_skin *sk = a->joint_skin[j] >= 0 ? &a->skins[a->joint_skin[j]] : NULL;
        sk_mat4 *pal = NULL;
        if (sk) {
            pal = calloc(sk->joint_count ? sk->joint_count : 1, sizeof *pal);
            sk_error err = {0};
            assert_int_equal(sk_skin_palette(sk, model, a->skeleton->joint_count, pal, sk->joint_count, &err), SK_OK);
        }
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            const sk_primitive *pr = &m->primitives[p];
            if (pr->mode != 4) continue;
            for (uint32_t k = 0; k < pr->vertex_count; k++) {
                sk_vec3 q;
                assert_true(sk_primitive_vertex_position(pr, k, NULL, sk && pr->influence_count ? pal : NULL,
                                                         sk ? sk->joint_count : 0, &model[j], &q));

                if (n == cap) {
                    cap *= 2;
                    v = realloc(v, cap * 3 * sizeof *v);
                    assert_non_null(v);
                }
                v[n * 3] = q.x, v[n * 3 + 1] = q.y, v[n * 3 + 2] = q.z;
                n++;
            }
        }
        free(pal);
    }
    *out = v;
    return n;
}

/* Largest distance from a point of a to the nearest point of b. */
static double one_way(const double *a, size_t na, const double *b, size_t nb) {
    double worst = 0;
    for (size_t i = 0; i < na; i++) {
        double best = DBL_MAX;
        for (size_t k = 0; k < nb && best > 0; k++) {
            double d = dist(a + i * 3, b + k * 3);
            if (d < best) best = d;
        }
        if (best > worst) worst = best;
    }
    return worst;
}

static void test_against_gltf(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    int checked = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const ref_case *rc = &cases[ci];
        char gp[1200], dir[1100], ip[1200];
        snprintf(dir, sizeof dir, "%s/assets/gltf/%s", shared, rc->model);
        sk_test_path(gp, sizeof gp, dir, rc->gltf_file);
        data_path(ip, sizeof ip, rc->file);
        sk_asset *g = NULL, *im = NULL;
        sk_error err = {0};
        if (sk_gltf_load_file(gp, NULL, &g, &err) != SK_OK) sk_test_missing("%s", err.message);
        int warnings = 0;
        sk_import_options opt = {.warning = warn_count, .warning_user = &warnings};
        if (sk_import_file(ip, &opt, &im, &err) != SK_OK) fail_msg("%s: %s", rc->file, err.message);
        assert_int_equal(sk_asset_validate(im, &err), SK_OK);
        /* Joints matched by name: every joint of the glTF file's skins must be there. */
        const sk_skeleton *gs = g->skeleton, *is = im->skeleton;
        uint32_t *match = calloc(gs->joint_count, sizeof *match);
        uint32_t nm = 0, skin_joints = 0, skin_found = 0;
        for (uint32_t j = 0; j < gs->joint_count; j++) {
            /* Blender names an unnamed glTF node after its mesh, else "Node_<index>". */
            int32_t k = gs->names[j][0] ? sk_skeleton_find(is, gs->names[j]) : -1;
            if (!gs->names[j][0]) {
                char nn[64];
                snprintf(nn, sizeof nn, "Node_%u", g->joint_to_node[j]);
                if (g->joint_mesh[j] >= 0 && g->meshes[g->joint_mesh[j]].name[0])
                    k = sk_skeleton_find(is, g->meshes[g->joint_mesh[j]].name);
                if (k < 0) k = sk_skeleton_find(is, nn);
            }
            /* Blender's COLLADA exporter prefixes bones with their armature
             * ("Armature_NAME") and writes '.' as '_' in ids. */
            char gn[256];
            if (gs->names[j][0]) snprintf(gn, sizeof gn, "%s", gs->names[j]);
            else snprintf(gn, sizeof gn, "Node_%u", g->joint_to_node[j]);
            for (char *c = gn; *c; c++)
                if (*c == '.') *c = '_';
            for (uint32_t q = 0; k < 0 && gn[0] && q < is->joint_count; q++) {
                size_t ln = strlen(is->names[q]), lg = strlen(gn);
                if (ln > lg && is->names[q][ln - lg - 1] == '_' && !strcmp(is->names[q] + ln - lg, gn))
                    k = (int32_t)q;
            }
            bool in_skin = false;
            for (uint32_t s = 0; s < g->skin_count; s++)
                for (uint32_t q = 0; q < g->skins[s].joint_count; q++) in_skin |= g->skins[s].joints[q] == j;
            skin_joints += in_skin;
            if (k >= 0) {
                match[nm++] = j;
                match[nm - 1] |= (uint32_t)k << 16;
                skin_found += in_skin;
            }
        }
        assert_int_equal(skin_found, skin_joints);
        assert_true(nm >= 2);
        /* Poses at TIMES times: joint world positions, and vertices. */
        size_t np = (size_t)nm * TIMES;
        double *pa = malloc(np * 3 * sizeof *pa), *pb = malloc(np * 3 * sizeof *pb);
        double *va[TIMES], *vb[TIMES];
        size_t nva[TIMES], nvb[TIMES];
        sk_mat4 *gm = calloc(gs->joint_count, sizeof *gm), *imm = calloc(is->joint_count, sizeof *imm);
        double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        for (int ti = 0; ti < TIMES; ti++) {
            double t = rc->times[TIMES - 1] > 0 ? rc->times[ti] : rc->glb_seconds * ti / (TIMES - 1);
            pose_at(g, "", t, gm);
            pose_at(im, rc->clips, t * rc->time_scale, imm);
            for (uint32_t k = 0; k < nm; k++) {
                uint32_t jg = match[k] & 0xffff, ji = match[k] >> 16;
                size_t o = ((size_t)ti * nm + k) * 3;
                for (int c = 0; c < 3; c++) pa[o + c] = gm[jg].m[12 + c], pb[o + c] = imm[ji].m[12 + c];
            }
            nva[ti] = vertices(g, gm, &va[ti]);
            nvb[ti] = vertices(im, imm, &vb[ti]);
            assert_true(nva[ti] > 0 && nvb[ti] > 0);
            for (size_t v = 0; v < nva[ti]; v++)
                for (int c = 0; c < 3; c++) {
                    if (va[ti][v * 3 + c] < lo[c]) lo[c] = va[ti][v * 3 + c];
                    if (va[ti][v * 3 + c] > hi[c]) hi[c] = va[ti][v * 3 + c];
                }
        }
        double size = dist(lo, hi);
        assert_true(size > 0);
        /* The similarity: from the joints; where they lie on one line (which
         * leaves a turn about it free), refined by iterative closest points:
         * each imported vertex paired with its nearest glTF vertex, the
         * joints kept. */
        simil f = fit(pa, pb, np);
        size_t nvall = 0;
        for (int ti = 0; ti < TIMES; ti++) nvall += nvb[ti];
        double *qa = malloc((np + nvall) * 3 * sizeof *qa), *qb = malloc((np + nvall) * 3 * sizeof *qb);
        assert_true(qa && qb);
        for (int it = 0; it < (rc->joints_on_a_line && !rc->vertices_differ ? 20 : 0); it++) {
            memcpy(qa, pa, np * 3 * sizeof *qa);
            memcpy(qb, pb, np * 3 * sizeof *qb);
            size_t k = np;
            for (int ti = 0; ti < TIMES; ti++)
                for (size_t v = 0; v < nvb[ti]; v++, k++) {
                    double q[3], best = DBL_MAX;
                    apply(&f, vb[ti] + v * 3, q);
                    size_t bi = 0;
                    for (size_t u = 0; u < nva[ti]; u++) {
                        double d = dist(q, va[ti] + u * 3);
                        if (d < best) best = d, bi = u;
                    }
                    memcpy(qa + k * 3, va[ti] + bi * 3, 3 * sizeof *qa);
                    memcpy(qb + k * 3, vb[ti] + v * 3, 3 * sizeof *qb);
                }
            f = fit(qa, qb, k);
        }
        free(qa);
        free(qb);
        double jerr = 0, verr = 0;
        for (size_t i = 0; i < np; i++) {
            double q[3];
            apply(&f, pb + i * 3, q);
            double d = dist(q, pa + i * 3);
            if (d > jerr) jerr = d;
            if (getenv("SK_TEST_VERBOSE") && d > 0.005 * size)
                printf("  time %zu joint %zu: %.3g%% (%.4g %.4g %.4g) vs (%.4g %.4g %.4g)\n", i / nm, i % nm, 100 * d / size,
                       q[0], q[1], q[2], pa[i * 3], pa[i * 3 + 1], pa[i * 3 + 2]);
        }
        for (int ti = 0; ti < TIMES; ti++) {
            for (size_t v = 0; v < nvb[ti]; v++) {
                double q[3];
                apply(&f, vb[ti] + v * 3, q);
                memcpy(vb[ti] + v * 3, q, sizeof q);
            }
            double e1 = one_way(va[ti], nva[ti], vb[ti], nvb[ti]), e2 = one_way(vb[ti], nvb[ti], va[ti], nva[ti]);
            if (getenv("SK_TEST_VERBOSE")) printf("  time %d: vertices %.3g%% / %.3g%%\n", ti, 100 * e1 / size, 100 * e2 / size);
            if (e1 > verr) verr = e1;
            if (e2 > verr) verr = e2;
            free(va[ti]);
            free(vb[ti]);
        }
        printf("%-28s %2u joints x %d times: scale %.6g, joints max %.3g%%, vertices max %.3g%% of %.4g "
               "(%zu/%zu vertices), %d warnings\n",
               rc->file, nm, TIMES, f.s, 100 * jerr / size, 100 * verr / size, size, nva[0], nvb[0], warnings);
        assert_true(jerr < 0.01 * size);
        if (rc->vertices_differ) assert_true(verr > 0.1 * size);
        else assert_true(verr < 0.01 * size);
        free(pa);
        free(pb);
        free(gm);
        free(imm);
        free(match);
        sk_asset_destroy(g);
        sk_asset_destroy(im);
        checked++;
    }
    assert_int_equal(checked, (int)(sizeof cases / sizeof cases[0]));
    printf("%d files compared with the glTF reader\n", checked);
}

static void test_known_failures(void **state) {
    (void)state;
    int checked = 0;
    for (size_t i = 0; i < sizeof known_failures / sizeof known_failures[0]; i++) {
        char p[1200];
        data_path(p, sizeof p, known_failures[i].file);
        FILE *f = fopen(p, "rb");
        if (!f) fail_msg("%s: missing", p);
        fclose(f);
        sk_asset *a = NULL;
        sk_error err = {0};
        sk_result r = sk_import_file(p, NULL, &a, &err);
        printf("%s: %s\n", known_failures[i].file, err.message);
        assert_int_equal(r, SK_ERR_PARSE);
        assert_null(a);
        assert_non_null(strstr(err.message, p));
        assert_non_null(strstr(err.message, "assimp: "));
        assert_non_null(strstr(err.message, known_failures[i].why));
        checked++;
    }
    assert_int_equal(checked, 4);
}

/* Corrupt FBX: truncations and flipped bytes of a good binary FBX and of an
 * ASCII one. Each gives SK_OK with a valid asset or an error with a message
 * naming the data; never a crash (the ASan build runs this). */
static void test_corrupt(void **state) {
    (void)state;
    const char *files[] = {"RiggedSimple.blender.fbx", "RiggedFigure.assimp.fbxa.fbx", "SimpleSkin.blender.dae"};
    int runs = 0, errors = 0;
    for (size_t fi = 0; fi < 3; fi++) {
        char p[1200];
        size_t size = 0;
        char *data = sk_test_read_file(data_path(p, sizeof p, files[fi]), &size);
        assert_non_null(data);
        const char *hint = strstr(files[fi], ".dae") ? "dae" : "fbx";
        uint32_t seed = 12345u + (uint32_t)fi;
        for (int k = 0; k < 40; k++) {
            char *copy = malloc(size);
            memcpy(copy, data, size);
            size_t n = size;
            if (k < 12) n = size * (size_t)k / 12; /* truncated, including 0 bytes */
            else
                for (int f = 0; f < 1 + k % 8; f++) {
                    seed = seed * 1664525u + 1013904223u;
                    copy[(seed >> 8) % size] ^= (char)(1 + (seed & 0x7f));
                }
            sk_asset *a = NULL;
            sk_error err = {0};
            sk_result r = sk_import_memory(copy, n, hint, "corrupt", NULL, &a, &err);
            if (r == SK_OK) {
                assert_int_equal(sk_asset_validate(a, &err), SK_OK);
                sk_asset_destroy(a);
            } else {
                assert_null(a);
                assert_non_null(strstr(err.message, "corrupt"));
                errors++;
            }
            runs++;
            free(copy);
        }
        free(data);
    }
    printf("corrupt inputs: %d runs, %d refused with a message\n", runs, errors);
    assert_int_equal(runs, 120);
    assert_true(errors >= 36); /* at least the truncations (12 per file) */
}

static void test_formats(void **state) {
    (void)state;
    char list[2048];
    size_t n = sk_import_extensions(list, sizeof list);
    assert_true(n > 0 && n < sizeof list);
    assert_non_null(strstr(list, "*.fbx"));
    assert_non_null(strstr(list, "*.dae"));
    assert_true(sk_import_can_read("x/model.FBX"));
    assert_true(sk_import_can_read("model.dae"));
    assert_false(sk_import_can_read("model.nosuchformat"));
    assert_false(sk_import_can_read("dir.fbx/model"));
    char v[32];
    assert_non_null(strchr(sk_import_assimp_version(v, sizeof v), '.'));
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_import_file("/nonexistent/file.fbx", NULL, &a, &err), SK_ERR_IO);
    assert_non_null(strstr(err.message, "/nonexistent/file.fbx"));
    assert_int_equal(sk_import_memory("garbage!", 8, "fbx", "bytes", NULL, &a, &err), SK_ERR_PARSE);
    assert_non_null(strstr(err.message, "bytes: assimp: "));
}

/* External textures: CesiumMan.blender.dae names Image_0.jpg beside it; the
 * importer reads it (the bytes equal the file's), and a model naming an image
 * outside its folder gets no bytes and a warning. */
static void test_external_texture(void **state) {
    (void)state;
    char p[1200], jp[1200];
    size_t jsize = 0, dsize = 0;
    char *jpg = sk_test_read_file(data_path(jp, sizeof jp, "Image_0.jpg"), &jsize);
    assert_non_null(jpg);
    sk_asset *a = NULL;
    sk_error err = {0};
    assert_int_equal(sk_import_file(data_path(p, sizeof p, "CesiumMan.blender.dae"), NULL, &a, &err), SK_OK);
    int found = 0;
    for (uint32_t i = 0; i < a->image_count; i++)
        if (a->images[i].data) {
            assert_int_equal(a->images[i].size, jsize);
            assert_memory_equal(a->images[i].data, jpg, jsize);
            assert_string_equal(a->images[i].mime_type, "image/jpeg");
            found++;
        }
    assert_int_equal(found, 1);
    sk_asset_destroy(a);
    /* the same model in a folder of its own, naming ../Image_0.jpg: not read */
    char *dae = sk_test_read_file(p, &dsize);
    assert_non_null(dae);
    char tmpl[] = "/tmp/sk_import_XXXXXX";
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    char sub[1200], model[1300], outside[1300];
    snprintf(sub, sizeof sub, "%s/model", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(model, sizeof model, "%s/m.dae", sub);
    snprintf(outside, sizeof outside, "%s/Image_0.jpg", dir);
    FILE *f = fopen(outside, "wb");
    assert_non_null(f);
    fwrite(jpg, 1, jsize, f);
    fclose(f);
    const char *from = "<init_from>Image_0.jpg</init_from>";
    char *at = strstr(dae, from);
    assert_non_null(at);
    f = fopen(model, "wb");
    assert_non_null(f);
    fwrite(dae, 1, (size_t)(at - dae), f);
    fputs("<init_from>../Image_0.jpg</init_from>", f);
    fputs(at + strlen(from), f);
    fclose(f);
    int warnings = 0;
    sk_import_options o = {0};
    o.warning = warn_count;
    o.warning_user = &warnings;
    assert_int_equal(sk_import_file(model, &o, &a, &err), SK_OK);
    for (uint32_t i = 0; i < a->image_count; i++) assert_null(a->images[i].data);
    assert_true(a->image_count >= 1 && warnings >= 1);
    sk_asset_destroy(a);
    remove(model), remove(outside), rmdir(sub), rmdir(dir);
    free(dae);
    free(jpg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_external_texture),
        cmocka_unit_test(test_known_failures),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_against_gltf),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
