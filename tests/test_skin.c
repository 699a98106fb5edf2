/* CPU skinning (include/skelanim/skin/skinning.h), against references that do
 * not use the library's code:
 *  - every kernel (scalar, SSE2, AVX2, AVX-512; LBS and DQS, 4 and 8 influences,
 *    normals, tangents with w kept, morph targets, strides) against the
 *    skinning equations evaluated in double in this file (reference_vertex),
 *    within a float32 rounding bound (LIM_*, in epsilons x magnitude);
 *  - closed forms worked out by hand: a rigid joint, and two joints blended
 *    1/4 : 3/4 (LBS: the weighted sum; DQS: a rotation by 2 atan2(...));
 *  - skinned positions of the shared glTF assets equal three.js's
 *    (oracle.three.json vertices[].world) with every kernel, LBS everywhere
 *    and DQS on single-influence vertices, within a bound from float32
 *    rounding through the hierarchy plus the oracle's non-unit-key term;
 *  - weights are renormalised at preparation; all-zero vertices use joint 0;
 *  - DQS equals LBS for rigid single-influence vertices; a two-joint cylinder
 *    twisted 180 degrees keeps its volume under DQS and collapses under LBS;
 *  - DQS refuses scaled joints with a clear message;
 *  - the levels run: every level the CPU supports, by the test's own reading
 *    of its features (not the library's sk_simd_best), ran for LBS and DQS
 *    (one "SIMD levels run:" line; a level the library resolved down is not
 *    counted as run): under CI a level not run fails, else a note. */
#include "support.h"
#include "skin/skinning_internal.h" /* the blocks: which vertices they hold and their lane weights */

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

/* The SIMD levels the skinning jobs of this program ran, per method (0 LBS,
 * 1 DQS), as the library resolves them (sk_skin_run runs
 * sk_simd_resolve(job->simd): a level the CPU lacks becomes the best it has):
 * bit 1 << level. Jobs at SK_SIMD_AUTO are not counted. test_simd_levels_run
 * (last) checks them against the CPU's own features. */
static unsigned simd_ran[2];

static sk_result skin_run(const sk_skin_job *job, sk_error *err) {
    sk_result r = sk_skin_run(job, err);
    if (r == SK_OK && job->simd != SK_SIMD_AUTO) simd_ran[job->method == SK_SKIN_DQS] |= 1u << sk_simd_resolve(job->simd);
    return r;
}

static uint32_t rng_state = 12345u;
static float frand(void) { /* [0,1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 16777216.0f;
}
static float srand1(void) { return frand() * 2.0f - 1.0f; }

static sk_quat rand_quat(void) {
    sk_quat q = {srand1(), srand1(), srand1(), srand1()};
    return sk_quat_normalize(q);
}

/* A random primitive: n vertices, k influences (some zero weights, unnormalised). */
typedef struct rand_prim {
    sk_primitive p;
    float *pos, *nrm, *tan, *w, *tp, *tn, *tt;
    uint16_t *j;
    sk_morph_target targets[2];
} rand_prim;

static void make_prim(rand_prim *r, uint32_t n, uint32_t k, uint32_t joints, bool morph) {
    memset(r, 0, sizeof *r);
    r->pos = malloc(n * 3 * sizeof(float));
    r->nrm = malloc(n * 3 * sizeof(float));
    r->tan = malloc(n * 4 * sizeof(float));
    r->w = malloc(n * k * sizeof(float));
    r->j = malloc(n * k * sizeof(uint16_t));
    for (uint32_t v = 0; v < n; v++) {
        for (int c = 0; c < 3; c++) r->pos[v * 3 + c] = srand1() * 2.0f;
        sk_vec3 nn = sk_vec3_normalize(sk_vec3_make(srand1(), srand1(), srand1() + 0.01f));
        r->nrm[v * 3 + 0] = nn.x, r->nrm[v * 3 + 1] = nn.y, r->nrm[v * 3 + 2] = nn.z;
        sk_vec3 tt = sk_vec3_normalize(sk_vec3_make(srand1() + 0.01f, srand1(), srand1()));
        r->tan[v * 4 + 0] = tt.x, r->tan[v * 4 + 1] = tt.y, r->tan[v * 4 + 2] = tt.z;
        r->tan[v * 4 + 3] = (v & 1) ? 1.0f : -1.0f;
        uint32_t used = 1 + v % k;
        for (uint32_t i = 0; i < k; i++) {
            r->j[v * k + i] = (uint16_t)(frand() * (float)joints);
            r->w[v * k + i] = i < used ? frand() * 0.9f + 0.1f : 0.0f;
        }
        if (v % 97 == 5)
            for (uint32_t i = 0; i < k; i++) r->w[v * k + i] = 0.0f; /* all-zero vertex */
    }
    r->p.mode = 4;
    r->p.vertex_count = n;
    r->p.positions = r->pos;
    r->p.normals = r->nrm;
    r->p.tangents = r->tan;
    r->p.influence_count = k;
    r->p.joints = r->j;
    r->p.weights = r->w;
    r->p.material = -1;
    if (morph) {
        r->tp = malloc(n * 3 * sizeof(float));
        r->tn = malloc(n * 3 * sizeof(float));
        r->tt = malloc(n * 3 * sizeof(float));
        for (uint32_t i = 0; i < n * 3; i++) r->tp[i] = srand1() * 0.3f, r->tn[i] = srand1() * 0.2f, r->tt[i] = srand1() * 0.2f;
        r->targets[0].positions = r->tp;
        r->targets[0].normals = r->tn;
        r->targets[0].tangents = r->tt;
        r->targets[1].positions = r->tn; /* positions only */
        r->p.target_count = 2;
        r->p.targets = r->targets;
    }
}

static void free_prim(rand_prim *r) {
    free(r->pos), free(r->nrm), free(r->tan), free(r->w), free(r->j), free(r->tp), free(r->tn), free(r->tt);
}

static void rand_palette(sk_mat4 *pal, uint32_t n, bool rigid) {
    for (uint32_t i = 0; i < n; i++) {
        float s = rigid ? 1.0f : 0.8f + 0.4f * frand();
        sk_transform x = {{srand1() * 3, srand1() * 3, srand1() * 3}, rand_quat(), {s, s, s}};
        pal[i] = sk_mat4_from_transform(&x);
    }
}

static double max_diff(const float *a, const float *b, size_t n) {
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - (double)b[i]) / fmax(1.0, fabs((double)b[i])));
    return d;
}

#define EPS32 ((double)FLT_EPSILON) /* 2^-23: float32 spacing at 1 */

/* ---- An independent reference: the skinning equations in double ------------
 * Written from the definitions, not from the library's kernels:
 *  - weights: the file's weights, non-positive ones dropped, divided by their
 *    sum; a vertex with none follows its first joint (as three.js's
 *    normalizeSkinWeights; the library documents the same);
 *  - morph targets first: p + sum_t w_t dp_t (same for normals, tangents);
 *  - LBS: M = sum_i w_i P_i, p' = M p; normals and tangents by M's 3x3,
 *    renormalised (three.js's skinnormal_vertex does the same);
 *  - DQS (Kavan et al. 2008, "Geometric skinning with approximate dual
 *    quaternion blending", algorithm 1): each P_i as a unit dual quaternion
 *    (rotation from the matrix by Shepperd's method, dual = 0.5 t q), blended
 *    with signs flipped into the hemisphere of the largest-weight influence
 *    (the first of equal ones), divided by the real part's norm; p' = R p +
 *    2 (w_r v_d - w_d v_r + v_r x v_d).
 * Besides the values it returns each output's magnitude (the sum of the
 * absolute values of the terms that make it up), the scale of float32
 * rounding in it. */
typedef struct ref_vertex {
    double p[3], n[3], t[3];
    double pmag, nmag, tmag; /* position: absolute scale; normal, tangent: relative to their length before normalising */
} ref_vertex;

static void quat_from_rigid(const float *m, double q[4]) { /* column-major 4x4, rotation part orthonormal */
    double r[3][3];
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) r[row][c] = m[c * 4 + row];
    double tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0) {
        double s = 2 * sqrt(tr + 1);
        q[3] = 0.25 * s, q[0] = (r[2][1] - r[1][2]) / s, q[1] = (r[0][2] - r[2][0]) / s, q[2] = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double s = 2 * sqrt(1 + r[0][0] - r[1][1] - r[2][2]);
        q[3] = (r[2][1] - r[1][2]) / s, q[0] = 0.25 * s, q[1] = (r[0][1] + r[1][0]) / s, q[2] = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        double s = 2 * sqrt(1 + r[1][1] - r[0][0] - r[2][2]);
        q[3] = (r[0][2] - r[2][0]) / s, q[0] = (r[0][1] + r[1][0]) / s, q[1] = 0.25 * s, q[2] = (r[1][2] + r[2][1]) / s;
    } else {
        double s = 2 * sqrt(1 + r[2][2] - r[0][0] - r[1][1]);
        q[3] = (r[1][0] - r[0][1]) / s, q[0] = (r[0][2] + r[2][0]) / s, q[1] = (r[1][2] + r[2][1]) / s, q[2] = 0.25 * s;
    }
}

static void cross3(const double a[3], const double b[3], double o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
static double len3(const double a[3]) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }
static void quat_rotate_d(const double q[4], const double v[3], double o[3]) { /* v + 2 w (u x v) + 2 u x (u x v) */
    double c1[3], c2[3];
    cross3(q, v, c1);
    cross3(q, c1, c2);
    for (int k = 0; k < 3; k++) o[k] = v[k] + 2 * q[3] * c1[k] + 2 * c2[k];
}

static void reference_vertex(const sk_primitive *pr, uint32_t v, const sk_mat4 *pal, sk_skin_method method,
                             const float *mw, ref_vertex *o) {
    const uint32_t k = pr->influence_count;
    /* morph */
    double p[3], n[3] = {0, 0, 0}, t[3] = {0, 0, 0}, pabs[3], nabs[3] = {0, 0, 0}, tabs[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++) {
        p[c] = pr->positions[v * 3 + c], pabs[c] = fabs(p[c]);
        if (pr->normals) n[c] = pr->normals[v * 3 + c], nabs[c] = fabs(n[c]);
        if (pr->tangents) t[c] = pr->tangents[v * 4 + c], tabs[c] = fabs(t[c]);
    }
    for (uint32_t m = 0; mw && m < pr->target_count; m++) {
        const sk_morph_target *tg = &pr->targets[m];
        for (int c = 0; c < 3; c++) {
            if (tg->positions) p[c] += mw[m] * tg->positions[v * 3 + c], pabs[c] += fabs(mw[m] * tg->positions[v * 3 + c]);
            if (tg->normals) n[c] += mw[m] * tg->normals[v * 3 + c], nabs[c] += fabs(mw[m] * tg->normals[v * 3 + c]);
            if (tg->tangents) t[c] += mw[m] * tg->tangents[v * 3 + c], tabs[c] += fabs(mw[m] * tg->tangents[v * 3 + c]);
        }
    }
    /* weights */
    uint32_t jj[8], cnt = 0;
    double ww[8], sum = 0;
    for (uint32_t i = 0; i < k; i++) {
        float w = pr->weights[v * k + i];
        if (!(w > 0.0f)) continue;
        jj[cnt] = pr->joints[v * k + i], ww[cnt] = w, sum += w, cnt++;
    }
    if (!cnt) jj[0] = pr->joints[v * k], ww[0] = 1, sum = 1, cnt = 1;
    for (uint32_t i = 0; i < cnt; i++) ww[i] /= sum;
    if (method == SK_SKIN_LBS) {
        double M[16] = {0}, Mabs[16] = {0};
        for (uint32_t i = 0; i < cnt; i++)
            for (int e = 0; e < 16; e++) M[e] += ww[i] * pal[jj[i]].m[e], Mabs[e] += ww[i] * fabs(pal[jj[i]].m[e]);
        double nn[3], tt[3], nb[3], tb[3];
        o->pmag = 0;
        for (int r = 0; r < 3; r++) {
            o->p[r] = M[r] * p[0] + M[4 + r] * p[1] + M[8 + r] * p[2] + M[12 + r];
            o->pmag = fmax(o->pmag, Mabs[r] * pabs[0] + Mabs[4 + r] * pabs[1] + Mabs[8 + r] * pabs[2] + Mabs[12 + r]);
            nn[r] = M[r] * n[0] + M[4 + r] * n[1] + M[8 + r] * n[2];
            nb[r] = Mabs[r] * nabs[0] + Mabs[4 + r] * nabs[1] + Mabs[8 + r] * nabs[2];
            tt[r] = M[r] * t[0] + M[4 + r] * t[1] + M[8 + r] * t[2];
            tb[r] = Mabs[r] * tabs[0] + Mabs[4 + r] * tabs[1] + Mabs[8 + r] * tabs[2];
        }
        double ln = len3(nn), lt = len3(tt);
        o->nmag = pr->normals ? len3(nb) / ln : 0;
        o->tmag = pr->tangents ? len3(tb) / lt : 0;
        for (int r = 0; r < 3; r++) o->n[r] = pr->normals ? nn[r] / ln : 0, o->t[r] = pr->tangents ? tt[r] / lt : 0;
        return;
    }
    /* DQS */
    uint32_t piv = 0;
    for (uint32_t i = 1; i < cnt; i++)
        if (ww[i] > ww[piv]) piv = i;
    double q0[4], b[8] = {0}, tabs_sum = 0;
    quat_from_rigid(pal[jj[piv]].m, q0);
    for (uint32_t i = 0; i < cnt; i++) {
        const float *m = pal[jj[i]].m;
        double q[4], tr[3] = {m[12], m[13], m[14]}, d[4];
        quat_from_rigid(m, q);
        /* dual = 0.5 * (t, 0) * q */
        d[0] = 0.5 * (tr[0] * q[3] + tr[1] * q[2] - tr[2] * q[1]);
        d[1] = 0.5 * (-tr[0] * q[2] + tr[1] * q[3] + tr[2] * q[0]);
        d[2] = 0.5 * (tr[0] * q[1] - tr[1] * q[0] + tr[2] * q[3]);
        d[3] = -0.5 * (tr[0] * q[0] + tr[1] * q[1] + tr[2] * q[2]);
        double w = (q[0] * q0[0] + q[1] * q0[1] + q[2] * q0[2] + q[3] * q0[3]) < 0 ? -ww[i] : ww[i];
        for (int e = 0; e < 4; e++) b[e] += w * q[e], b[4 + e] += w * d[e];
        tabs_sum += ww[i] * len3(tr);
    }
    double l = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    double r[4] = {b[0] / l, b[1] / l, b[2] / l, b[3] / l}, dv[3] = {b[4] / l, b[5] / l, b[6] / l}, dw = b[7] / l;
    double rp[3], cr[3];
    quat_rotate_d(r, p, rp);
    cross3(r, dv, cr);
    for (int c = 0; c < 3; c++) o->p[c] = rp[c] + 2 * (r[3] * dv[c] - dw * r[c] + cr[c]);
    o->pmag = len3(pabs) + tabs_sum;
    double nn[3], tt[3];
    quat_rotate_d(r, n, nn);
    quat_rotate_d(r, t, tt);
    double ln = len3(nn), lt = len3(tt);
    o->nmag = pr->normals ? len3(nabs) / ln : 0;
    o->tmag = pr->tangents ? len3(tabs) / lt : 0;
    for (int c = 0; c < 3; c++) o->n[c] = pr->normals ? nn[c] / ln : 0, o->t[c] = pr->tangents ? tt[c] / lt : 0;
}

/* Worst |kernel - reference| over the outputs, in units of float32 epsilon times
 * each output's magnitude. */
typedef struct ref_err { double p, n, t; } ref_err;
static void ref_compare(const float *pos, size_t ps, const float *nrm, const float *tan, const ref_vertex *r,
                        ref_err *e) {
    for (int c = 0; c < 3; c++) {
        e->p = fmax(e->p, fabs(pos[c] - r->p[c]) / (EPS32 * r->pmag));
        if (nrm) e->n = fmax(e->n, fabs(nrm[c] - r->n[c]) / (EPS32 * r->nmag));
        if (tan) e->t = fmax(e->t, fabs(tan[c] - r->t[c]) / (EPS32 * r->tmag));
    }
    (void)ps;
}

/* Limits, in float32 epsilons times the output's magnitude (see reference_vertex).
 * LBS positions: k products summed into M (k <= 8 roundings), M p (3 more), the
 * morph sum (2) and the weights rounded to float32 (1): at most 14 roundings of
 * half an epsilon each on terms bounded by the magnitude, i.e. 7 epsilons
 * (the classic bound for a sum of products, n u with u = eps/2). Normals and
 * tangents add the normalisation (a square root, a division, a product: 3 more
 * roundings) relative to the length before normalising: 9 epsilons. DQS adds
 * the matrix-to-quaternion conversion (a square root and divisions, ~5
 * roundings on unit values), the blend (8), the normalisation (3) and two
 * quaternion products for the rotation and the translation (~6 each): 16
 * epsilons. Measured worst (printed by run_levels; gcc and clang builds): LBS
 * 1.15, DQS 4.51 epsilons. */
static const double LIM_LBS_P = 7, LIM_LBS_NT = 9, LIM_DQS = 16;

static void run_levels(uint32_t k, sk_skin_method method, bool morph) {
    enum { N = 1500, J = 40 };
    rand_prim rp;
    make_prim(&rp, N, k, J, morph);
    sk_skinned_mesh *m = NULL;
    sk_error err = {0};
    assert_int_equal(sk_skinned_mesh_create(&rp.p, NULL, &m, &err), SK_OK);
    assert_int_equal(sk_skinned_mesh_vertex_count(m), N);
    assert_int_equal(sk_skinned_mesh_influence_count(m), k);
    assert_true(sk_skinned_mesh_palette_size(m) <= J);
    sk_mat4 pal[J];
    sk_dual_quat dq[J];
    rand_palette(pal, J, method == SK_SKIN_DQS);
    assert_int_equal(sk_skin_dual_quats(pal, J, dq, &err), method == SK_SKIN_DQS ? SK_OK : SK_ERR_UNSUPPORTED);
    float mw[2] = {0.7f, -0.4f};
    ref_vertex *ref = malloc(N * sizeof *ref);
    for (uint32_t v = 0; v < N; v++) reference_vertex(&rp.p, v, pal, method, morph ? mw : NULL, &ref[v]);
    float *out[4][3];
    sk_simd levels[4] = {SK_SIMD_SCALAR, SK_SIMD_SSE2, SK_SIMD_AVX2, SK_SIMD_AVX512};
    const double lp = method == SK_SKIN_LBS ? LIM_LBS_P : LIM_DQS, lnt = method == SK_SKIN_LBS ? LIM_LBS_NT : LIM_DQS;
    for (int l = 0; l < 4; l++) {
        out[l][0] = calloc(N * 5, sizeof(float)); /* position stride 5 */
        out[l][1] = calloc(N * 3, sizeof(float));
        out[l][2] = calloc(N * 4, sizeof(float));
        sk_skin_job job = {.mesh = m, .method = method, .simd = levels[l], .palette = pal, .dual_quats = dq,
                           .palette_count = J, .morph_weights = morph ? mw : NULL, .out_positions = out[l][0],
                           .out_normals = out[l][1], .out_tangents = out[l][2], .position_stride = 5};
        assert_int_equal(skin_run(&job, &err), SK_OK);
        /* Every level (on a CPU without it: resolved down) against the double reference. */
        ref_err e = {0, 0, 0};
        for (uint32_t v = 0; v < N; v++)
            ref_compare(out[l][0] + v * 5, 5, out[l][1] + v * 3, out[l][2] + v * 4, &ref[v], &e);
        printf("%s-%u%s %-6s vs double reference: position %.2f, normal %.2f, tangent %.2f eps x magnitude "
               "(limits %.0f, %.0f, %.0f)\n",
               method == SK_SKIN_LBS ? "LBS" : "DQS", k, morph ? "+morph" : "", sk_simd_name(sk_simd_resolve(levels[l])),
               e.p, e.n, e.t, lp, lnt, lnt);
        assert_true(e.p <= lp);
        assert_true(e.n <= lnt);
        assert_true(e.t <= lnt);
    }
    /* Tangent w kept, normals unit. */
    for (uint32_t v = 0; v < N; v++) {
        assert_true(out[0][2][v * 4 + 3] == rp.tan[v * 4 + 3]);
        const float *nn = out[0][1] + v * 3;
        assert_true(fabs(sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]) - 1.0) < 1e-5);
    }
    /* A sub-range lands at index 0 and matches the reference. */
    float sub[10 * 3];
    sk_skin_job job = {.mesh = m, .method = method, .simd = SK_SIMD_AUTO, .palette = pal, .dual_quats = dq,
                       .palette_count = J, .morph_weights = morph ? mw : NULL, .first_vertex = 100, .vertex_count = 10,
                       .out_positions = sub};
    assert_int_equal(skin_run(&job, &err), SK_OK);
    ref_err es = {0, 0, 0};
    for (int v = 0; v < 10; v++) ref_compare(sub + v * 3, 3, NULL, NULL, &ref[100 + v], &es);
    assert_true(es.p <= lp);
    /* Positions + normals without tangents (the kernels' fast path when nothing is morphed). */
    float *pn = calloc(N * 3, sizeof(float)), *nn2 = calloc(N * 3, sizeof(float));
    for (int l = 0; l < 4; l++) {
        sk_skin_job j2 = {.mesh = m, .method = method, .simd = levels[l], .palette = pal, .dual_quats = dq,
                          .palette_count = J, .morph_weights = morph ? mw : NULL, .out_positions = pn,
                          .out_normals = nn2};
        assert_int_equal(skin_run(&j2, &err), SK_OK);
        ref_err e = {0, 0, 0};
        for (uint32_t v = 0; v < N; v++) ref_compare(pn + v * 3, 3, nn2 + v * 3, NULL, &ref[v], &e);
        assert_true(e.p <= lp);
        assert_true(e.n <= lnt);
    }
    free(pn), free(nn2);
    free(ref);
    for (int l = 0; l < 4; l++) free(out[l][0]), free(out[l][1]), free(out[l][2]);
    sk_skinned_mesh_destroy(m);
    free_prim(&rp);
}

/* Influence groups (issue #13): vertices are grouped by their number of
 * non-zero weights (1, 2, 3, 4, 5-8) and each group skinned by its own
 * kernel; the output must stay in vertex order. The counts here change in
 * runs of 1 to 40 vertices (so groups interleave in short and long runs,
 * and the SIMD kernels' blocks of eight cross runs), with all-zero vertices
 * and negative / zero weights among them. Every level against the double
 * reference and against the scalar kernel (which walks the vertices in
 * order, without the groups), for sub-ranges that cut through runs and
 * groups, every output combination and strides 5 / 4 / 6 and 3 / 3 / 6
 * (packed positions and normals take other stores); outputs outside the
 * range and the padding between strided elements stay untouched. */
static void run_grouped(uint32_t k, sk_skin_method method, bool morph, bool coherent) {
    enum { N = 1500, J = 40 };
    rand_prim rp;
    make_prim(&rp, N, k, J, morph);
    uint32_t hist[9] = {0};
    for (uint32_t v = 0, left = 0, used = 1, base = 0; v < N; v++) {
        if (!left) left = 1 + (uint32_t)(frand() * 40.0f), used = 1 + (uint32_t)(frand() * (float)k), base = (uint32_t)(frand() * J);
        left--;
        for (uint32_t i = 0; i < k; i++) rp.w[v * k + i] = i < used ? frand() * 0.9f + 0.1f : 0.0f;
        /* coherent: a run's vertices share their joints (as a limb's do), in shuffled slots, one vertex in
         * 23 random (blocks form, and vertices are left to the rest groups) */
        if (coherent && v % 23 != 11)
            for (uint32_t i = 0; i < k; i++) rp.j[v * k + (i + v) % k] = (uint16_t)((base + 3 * i) % J);
        if (v % 89 == 7) rp.w[v * k] = -0.5f; /* negative: dropped */
        if (v % 97 == 5)
            for (uint32_t i = 0; i < k; i++) rp.w[v * k + i] = 0.0f; /* all zero: joint 0 of the file */
        /* zero slots first, the weights out of order */
        if (v % 5 == 1 && used < k) rp.w[v * k + k - 1] = rp.w[v * k], rp.w[v * k] = 0.0f;
    }
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&rp.p, NULL, &m, NULL), SK_OK);
    uint32_t in_blocks = 0;
    for (uint32_t b = 0; b < m->block_count; b++) in_blocks += m->blocks[b].count;
#ifndef SK_SKIN_X86
    assert_int_equal(in_blocks, 0); /* built for the x86-64 kernel only */
#else
    if (coherent) { /* both paths taken: blocks and the rest groups */
        assert_true(in_blocks > N / 3 && in_blocks < N);
    } else
#endif
    {
        assert_true(in_blocks < N / 20);
    }
    for (uint32_t v = 0; v < N; v++) {
        uint16_t jj[8];
        float ww[8];
        uint32_t c = sk_skinned_mesh_vertex_influences(m, v, jj, ww), want = 0;
        for (uint32_t i = 0; i < k; i++) want += rp.w[v * k + i] > 0.0f;
        assert_int_equal(c, want ? want : 1);
        hist[c]++;
    }
    for (uint32_t c = 1; c <= k; c++) assert_true(hist[c] > 0); /* every group present */
    sk_mat4 pal[J];
    sk_dual_quat dq[J];
    rand_palette(pal, J, method == SK_SKIN_DQS);
    if (method == SK_SKIN_DQS) assert_int_equal(sk_skin_dual_quats(pal, J, dq, NULL), SK_OK);
    float mw[2] = {0.7f, -0.4f};
    ref_vertex *ref = malloc(N * sizeof *ref);
    for (uint32_t v = 0; v < N; v++) reference_vertex(&rp.p, v, pal, method, morph ? mw : NULL, &ref[v]);
    const double lp = method == SK_SKIN_LBS ? LIM_LBS_P : LIM_DQS, lnt = method == SK_SKIN_LBS ? LIM_LBS_NT : LIM_DQS;
    static const uint32_t ranges[][2] = {{0, 0}, {1, N - 1}, {37, 500}, {N - 13, 13}, {611, 1}, {100, 9}, {250, 801}};
    float *op = malloc(N * 5 * sizeof(float)), *on = malloc(N * 4 * sizeof(float)), *ot = malloc(N * 6 * sizeof(float));
    float *sp = malloc(N * 5 * sizeof(float)), *sn = malloc(N * 4 * sizeof(float)), *st3 = malloc(N * 6 * sizeof(float));
    const float SENT = 12345.0f;
    ref_err worst = {0, 0, 0};
    for (int packed = 0; packed < 2; packed++) /* strides 5 / 4 / 6, and positions and normals packed (3 / 3 / 6) */
    for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++)
        for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
            for (int combo = 0; combo < 4; combo++) { /* P+N+T, P+N, P, N+T */
                bool wp = combo != 3, wn = combo != 2, wt = combo == 0 || combo == 3;
                const uint32_t ps = packed ? 3 : 5, ns = packed ? 3 : 4;
                uint32_t first = ranges[r][0], cnt = ranges[r][1] ? ranges[r][1] : N - first;
                for (uint32_t i = 0; i < N * 5; i++) op[i] = sp[i] = SENT;
                for (uint32_t i = 0; i < N * 4; i++) on[i] = sn[i] = SENT;
                for (uint32_t i = 0; i < N * 6; i++) ot[i] = st3[i] = SENT;
                sk_skin_job job = {.mesh = m, .method = method, .simd = (sk_simd)l, .palette = pal, .dual_quats = dq,
                                   .palette_count = J, .morph_weights = morph ? mw : NULL, .first_vertex = first,
                                   .vertex_count = ranges[r][1], .out_positions = wp ? op : NULL,
                                   .out_normals = wn ? on : NULL, .out_tangents = wt ? ot : NULL,
                                   .position_stride = ps, .normal_stride = ns, .tangent_stride = 6};
                assert_int_equal(skin_run(&job, NULL), SK_OK);
                /* the scalar kernel (vertex by vertex, no groups) on the same job agrees within 1e-5 */
                sk_skin_job sj = job;
                sj.simd = SK_SIMD_SCALAR;
                sj.out_positions = wp ? sp : NULL, sj.out_normals = wn ? sn : NULL, sj.out_tangents = wt ? st3 : NULL;
                assert_int_equal(skin_run(&sj, NULL), SK_OK);
                if (wp) assert_true(max_diff(op, sp, (size_t)cnt * ps) < 1e-5);
                if (wn) assert_true(max_diff(on, sn, (size_t)cnt * ns) < 1e-5);
                if (wt) assert_true(max_diff(ot, st3, (size_t)cnt * 6) < 1e-5);
                ref_err e = {0, 0, 0};
                for (uint32_t i = 0; i < cnt; i++) {
                    const ref_vertex *rv = &ref[first + i];
                    float zero[4] = {0, 0, 0, 0};
                    ref_compare(wp ? op + i * ps : zero, ps, wn ? on + i * ns : NULL, wt ? ot + i * 6 : NULL, rv, &e);
                    if (!wp) e.p = 0;
                    if (wt) assert_true(ot[i * 6 + 3] == rp.tan[(first + i) * 4 + 3]);
                    /* padding untouched */
                    if (!packed) assert_true(op[i * 5 + 3] == SENT && op[i * 5 + 4] == SENT && on[i * 4 + 3] == SENT);
                    assert_true(ot[i * 6 + 4] == SENT && ot[i * 6 + 5] == SENT);
                }
                for (uint32_t i = cnt; i < N; i++) /* nothing past the range */
                    assert_true(op[i * ps] == SENT && on[i * ns] == SENT && ot[i * 6] == SENT);
                if (e.p > lp || e.n > lnt || e.t > lnt) {
                    printf("grouped %s-%u%s %s range %u+%u outputs %d strides %u/%u: position %.2f, normal %.2f, "
                           "tangent %.2f eps\n",
                           method == SK_SKIN_LBS ? "LBS" : "DQS", k, morph ? "+morph" : "",
                           sk_simd_name(sk_simd_resolve((sk_simd)l)), first, cnt, combo, ps, ns, e.p, e.n, e.t);
                    fail();
                }
                worst.p = fmax(worst.p, e.p), worst.n = fmax(worst.n, e.n), worst.t = fmax(worst.t, e.t);
            }
    printf("grouped %s-%u%s%s (%u of %u vertices in blocks), all levels, ranges and outputs: position %.2f, normal %.2f, "
           "tangent %.2f eps x magnitude\n",
           method == SK_SKIN_LBS ? "LBS" : "DQS", k, morph ? "+morph" : "", coherent ? " coherent" : "", in_blocks, N,
           worst.p, worst.n, worst.t);
    free(op), free(on), free(ot), free(sp), free(sn), free(st3), free(ref);
    sk_skinned_mesh_destroy(m);
    free_prim(&rp);
}

/* Whether vertex v of m lists joint j among its influences; *count (may be
 * NULL): how many it has. */
static bool vertex_uses(const sk_skinned_mesh *m, uint32_t v, uint32_t j, uint32_t *count) {
    uint16_t jj[8];
    float ww[8];
    uint32_t c = sk_skinned_mesh_vertex_influences(m, v, jj, ww);
    if (count) *count = c;
    for (uint32_t q = 0; q < c; q++)
        if (jj[q] == j) return true;
    return false;
}

/* The blocks (sk_skin_block): built as a partition, and skinned the same
 * whatever the call.
 *  - Every vertex is in exactly one block or one rest group; blocks ascend
 *    without overlap, 1-8 vertices, a union of distinct joints; a lane's
 *    weight of a union joint is the sum of its vertex's weights of that joint
 *    (sk_skinned_mesh_vertex_influences), lanes past the count are zero; the
 *    joints the blocks name are the unions' joints, ascending.
 *  - A vertex gets the bit-identical result from every call that writes it
 *    with the same outputs (positions and normals, positions alone, normals
 *    alone, all three with tangents, tangents alone): sub-ranges cutting
 *    blocks anywhere, packed and at stride 7, against the whole mesh in one
 *    call (AVX2 and AVX-512; the rest groups too).
 *  - An infinite palette element of a joint some blocks name: every vertex
 *    finite where the scalar kernel's is, and within 1e-5 of it (the blocks
 *    are not used: zero weights times infinity would spread NaN to vertices
 *    the joint does not move). A NaN in a column's fourth float, which no
 *    kernel reads, changes nothing. */
static void test_blocks(void **st) {
    (void)st;
    enum { N = 700, K = 4, J = 30 };
    rand_prim rp;
    make_prim(&rp, N, K, J, false);
    for (uint32_t v = 0, left = 0, used = 1, base = 0; v < N; v++) {
        if (!left) left = 1 + (uint32_t)(frand() * 30.0f), used = 1 + (uint32_t)(frand() * K), base = (uint32_t)(frand() * J);
        left--;
        for (uint32_t i = 0; i < K; i++) {
            rp.w[v * K + i] = i < used ? frand() * 0.9f + 0.1f : 0.0f;
            rp.j[v * K + i] = (uint16_t)((base + 5 * i) % J);
        }
        if (v % 31 == 3) rp.j[v * K + 1] = rp.j[v * K]; /* a joint listed twice: its weights add up */
    }
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&rp.p, NULL, &m, NULL), SK_OK);
#ifndef SK_SKIN_X86
    assert_int_equal(m->block_count, 0); /* built for the x86-64 kernel only */
    printf("blocks: none without the x86-64 kernels\n");
    sk_skinned_mesh_destroy(m);
    free_prim(&rp);
    return;
#endif
    /* the partition */
    uint8_t *seen = calloc(N, 1), *named = calloc(J, 1);
    uint32_t in_blocks = 0, end = 0;
    assert_true(m->block_count > 0);
    for (uint32_t b = 0; b < m->block_count; b++) {
        const sk_skin_block *bk = &m->blocks[b];
        assert_true(bk->count >= 1 && bk->count <= 8 && bk->joints >= 1 && bk->joints <= SK_SKIN_BLOCK_JOINTS);
        assert_true(bk->first >= end && bk->first + bk->count <= N);
        end = bk->first + bk->count;
        assert_true(bk->weights + 8u * bk->joints <= m->block_weight_count);
        const float *W = m->block_weights + bk->weights;
        for (uint32_t i = 0; i < bk->joints; i++) {
            assert_true(bk->joint8[i] % 8 == 0 && bk->joint8[i] / 8 < J);
            named[bk->joint8[i] / 8] = 1;
            for (uint32_t i2 = 0; i2 < i; i2++) assert_true(bk->joint8[i2] != bk->joint8[i]);
        }
        for (uint32_t l = 0; l < 8; l++) {
            uint16_t jj[8];
            float ww[8];
            uint32_t c = l < bk->count ? sk_skinned_mesh_vertex_influences(m, bk->first + l, jj, ww) : 0;
            if (l < bk->count) seen[bk->first + l]++, in_blocks++;
            for (uint32_t i = 0; i < bk->joints; i++) {
                float want = 0.0f;
                for (uint32_t q = 0; q < c; q++)
                    if (jj[q] == bk->joint8[i] / 8) want += ww[q];
                assert_true(W[8 * i + l] == want);
            }
        }
    }
    for (uint32_t g = 0; g < SK_SKIN_GROUPS; g++)
        for (uint32_t e = 0; e < m->rest[g].count; e++) seen[m->rest[g].index[e]]++;
    for (uint32_t v = 0; v < N; v++) assert_int_equal(seen[v], 1);
    uint32_t nj = 0;
    for (uint32_t j = 0; j < J; j++)
        if (named[j]) {
            assert_true(nj < m->block_joint_count && m->block_joints[nj] == j);
            nj++;
        }
    assert_int_equal(nj, m->block_joint_count);
    assert_true(in_blocks > N / 2 && in_blocks < N);

    /* the same result from every call */
    sk_mat4 pal[J];
    rand_palette(pal, J, false);
    enum { S = 7 };
    float *fp = malloc(N * 3 * sizeof(float)), *fn = malloc(N * 3 * sizeof(float)), *ft = malloc(N * 4 * sizeof(float));
    float *op = malloc(N * S * sizeof(float)), *on = malloc(N * S * sizeof(float)), *ot = malloc(N * S * sizeof(float));
    uint32_t calls = 0;
    for (int l = SK_SIMD_AVX2; l <= SK_SIMD_AVX512; l++) {
        for (int combo = 0; combo < 5; combo++) { /* P+N, P, N, P+N+T, T: against the whole mesh, same outputs */
            bool wp = combo == 0 || combo == 1 || combo == 3, wn = combo == 0 || combo == 2 || combo == 3;
            bool wt = combo >= 3;
            sk_skin_job full = {.mesh = m, .method = SK_SKIN_LBS, .simd = (sk_simd)l, .palette = pal,
                                .palette_count = J, .out_positions = wp ? fp : NULL, .out_normals = wn ? fn : NULL,
                                .out_tangents = wt ? ft : NULL};
            assert_int_equal(skin_run(&full, NULL), SK_OK);
            for (uint32_t first = 0; first < 40; first += 3)
                for (uint32_t cnt = 1; cnt < 30; cnt += 2)
                    for (uint32_t stride = 4; stride <= S; stride += S - 4) { /* packed tangents, and strided */
                        uint32_t f = first + (cnt * 37u) % 500u, ps = stride == 4 ? 3 : stride; /* anywhere */
                        sk_skin_job job = full;
                        job.first_vertex = f, job.vertex_count = cnt;
                        job.out_positions = wp ? op : NULL, job.out_normals = wn ? on : NULL;
                        job.out_tangents = wt ? ot : NULL;
                        job.position_stride = job.normal_stride = ps, job.tangent_stride = stride;
                        assert_int_equal(skin_run(&job, NULL), SK_OK);
                        for (uint32_t i = 0; i < cnt; i++) {
                            for (int c = 0; c < 3; c++) {
                                if (wp) assert_true(op[i * ps + c] == fp[(f + i) * 3 + c]);
                                if (wn) assert_true(on[i * ps + c] == fn[(f + i) * 3 + c]);
                            }
                            for (int c = 0; c < 4 && wt; c++) assert_true(ot[i * stride + c] == ft[(f + i) * 4 + c]);
                        }
                        calls++;
                    }
        }
    }
    assert_int_equal(calls, 2 * 5 * 14 * 15 * 2);

    /* DQS: a block's vertices get the same bits from every call too (the rest groups' SoA and
     * per-vertex forms differ by roundings, so only the blocks' vertices are compared here) */
    sk_mat4 rig[J];
    sk_dual_quat dqs[J];
    rand_palette(rig, J, true);
    assert_int_equal(sk_skin_dual_quats(rig, J, dqs, NULL), SK_OK);
    uint32_t dq_checked = 0;
    for (int l = SK_SIMD_AVX2; l <= SK_SIMD_AVX512; l++) {
        sk_skin_job full = {.mesh = m, .method = SK_SKIN_DQS, .simd = (sk_simd)l, .dual_quats = dqs,
                            .palette_count = J, .out_positions = fp, .out_normals = fn, .out_tangents = ft};
        assert_int_equal(skin_run(&full, NULL), SK_OK);
        for (uint32_t f = 0; f < 40; f += 3)
            for (uint32_t cnt = 1; cnt < 30; cnt += 4) {
                sk_skin_job job = full;
                uint32_t v0 = f + (cnt * 37u) % 500u;
                job.first_vertex = v0, job.vertex_count = cnt, job.out_positions = op, job.out_normals = on;
                job.out_tangents = ot, job.position_stride = job.normal_stride = 3, job.tangent_stride = 4;
                assert_int_equal(skin_run(&job, NULL), SK_OK);
                for (uint32_t i = 0; i < cnt; i++) {
                    bool inb = false;
                    for (uint32_t b = 0; b < m->block_count && !inb; b++)
                        inb = v0 + i >= m->blocks[b].first && v0 + i < m->blocks[b].first + m->blocks[b].count;
                    if (!inb) continue;
                    assert_memory_equal(op + 3 * i, fp + 3 * (v0 + i), 12);
                    assert_memory_equal(on + 3 * i, fn + 3 * (v0 + i), 12);
                    assert_memory_equal(ot + 4 * i, ft + 4 * (v0 + i), 16);
                    dq_checked++;
                }
            }
    }
    assert_true(dq_checked > 2 * 14 * 8 * 10);
    /* an infinite dual quaternion element: blocks not used, vertices it does not move finite */
    sk_dual_quat dinf[J];
    memcpy(dinf, dqs, sizeof dinf);
    const uint32_t badq = m->blocks[m->block_count / 3].joint8[0] / 8;
    dinf[badq].dual.y = INFINITY;
    uint32_t dq_spared = 0;
    for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
        sk_skin_job jd = {.mesh = m, .method = SK_SKIN_DQS, .simd = (sk_simd)l, .dual_quats = dinf,
                          .palette_count = J, .out_positions = l == SK_SIMD_SCALAR ? fp : op};
        assert_int_equal(skin_run(&jd, NULL), SK_OK);
        if (l == SK_SIMD_SCALAR) continue;
        for (uint32_t v = 0; v < N; v++) {
            if (vertex_uses(m, v, badq, NULL)) continue;
            for (int e = 0; e < 3; e++) {
                assert_true(isfinite(op[3 * v + e]));
                assert_true(fabs((double)op[3 * v + e] - fp[3 * v + e]) <= 1e-5 * fmax(1.0, fabs((double)fp[3 * v + e])));
            }
            dq_spared++;
        }
    }
    assert_true(dq_spared > 0);

    /* non-finite palette elements */
    const uint32_t bad = m->blocks[m->block_count / 2].joint8[0] / 8;
    float *sp = malloc(N * 3 * sizeof(float)), *sn = malloc(N * 3 * sizeof(float));
    sk_skin_job ref = {.mesh = m, .method = SK_SKIN_LBS, .simd = SK_SIMD_AVX2, .palette = pal, .palette_count = J,
                       .out_positions = fp, .out_normals = fn};
    assert_int_equal(skin_run(&ref, NULL), SK_OK);
    sk_mat4 nanw[J];
    memcpy(nanw, pal, sizeof nanw);
    nanw[bad].m[3] = NAN, nanw[bad].m[7] = INFINITY; /* the fourth floats of columns 0 and 1 */
    sk_skin_job jw = ref;
    jw.palette = nanw, jw.out_positions = op, jw.out_normals = on;
    assert_int_equal(skin_run(&jw, NULL), SK_OK);
    assert_true(memcmp(op, fp, N * 3 * sizeof(float)) == 0 && memcmp(on, fn, N * 3 * sizeof(float)) == 0);
    sk_mat4 inf[J];
    memcpy(inf, pal, sizeof inf);
    inf[bad].m[5] = INFINITY; /* column 1, y */
    uint32_t nonfinite = 0, unaffected_blocks = 0;
    for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
        sk_skin_job j2 = ref;
        j2.simd = (sk_simd)l, j2.palette = inf, j2.out_positions = l == SK_SIMD_SCALAR ? sp : op;
        j2.out_normals = l == SK_SIMD_SCALAR ? sn : on;
        assert_int_equal(skin_run(&j2, NULL), SK_OK);
        if (l == SK_SIMD_SCALAR) continue;
        for (uint32_t i = 0; i < N * 3; i++) {
            assert_true(!!isfinite(op[i]) == !!isfinite(sp[i]) && !!isfinite(on[i]) == !!isfinite(sn[i]));
            if (isfinite(sp[i])) assert_true(fabs((double)op[i] - sp[i]) <= 1e-5 * fmax(1.0, fabs((double)sp[i])));
            if (isfinite(sn[i])) assert_true(fabs((double)on[i] - sn[i]) <= 1e-5);
            nonfinite += !isfinite(sp[i]);
        }
    }
    /* the bad joint moves some vertices, and some vertices of its blocks it does not move */
    for (uint32_t b = 0; b < m->block_count; b++) {
        const sk_skin_block *bk = &m->blocks[b];
        bool names = false;
        for (uint32_t i = 0; i < bk->joints; i++) names = names || bk->joint8[i] / 8 == bad;
        for (uint32_t l = 0; names && l < bk->count; l++) unaffected_blocks += isfinite(sp[(bk->first + l) * 3]) != 0;
    }
    assert_true(nonfinite > 0 && unaffected_blocks > 0);
    printf("blocks: %u blocks hold %u of %u vertices; %u LBS calls bit-identical to the whole mesh, DQS %u block "
           "vertices; joint %u infinite: %u non-finite floats per level as in the scalar kernel, %u vertices of its "
           "blocks it does not move finite (DQS: %u vertices)\n",
           m->block_count, in_blocks, N, calls, dq_checked, bad, nonfinite / 3, unaffected_blocks, dq_spared);
    free(seen), free(named), free(fp), free(fn), free(ft), free(op), free(on), free(ot), free(sp), free(sn);
    sk_skinned_mesh_destroy(m);
    free_prim(&rp);
}

/* A palette element that is not finite reaches only the vertices whose
 * joints carry it, on every LBS level: 1-8 influences per vertex (the 5-8
 * group pads its slots with weight 0), joint 0 infinite; every vertex that
 * does not list joint 0 finite and within 1e-5 of the scalar kernel. */
static void test_nonfinite_palette(void **st) {
    (void)st;
    enum { N = 300, K = 8, J = 10 };
    rand_prim rp;
    make_prim(&rp, N, K, J, false);
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&rp.p, NULL, &m, NULL), SK_OK);
    sk_mat4 pal[J];
    rand_palette(pal, J, false);
    pal[0].m[5] = INFINITY;
    float sp[N * 3], sn[N * 3], op[N * 3], on[N * 3];
    uint32_t checked = 0, spared = 0;
    for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
        sk_skin_job job = {.mesh = m, .method = SK_SKIN_LBS, .simd = (sk_simd)l, .palette = pal, .palette_count = J,
                           .out_positions = l == SK_SIMD_SCALAR ? sp : op, .out_normals = l == SK_SIMD_SCALAR ? sn : on};
        assert_int_equal(skin_run(&job, NULL), SK_OK);
        if (l == SK_SIMD_SCALAR) continue;
        for (uint32_t v = 0; v < N; v++) {
            uint32_t c;
            bool uses0 = vertex_uses(m, v, 0, &c);
            for (int e = 0; e < 3; e++) {
                float a = op[v * 3 + e], b = sp[v * 3 + e], an = on[v * 3 + e], bn = sn[v * 3 + e];
                if (uses0) continue; /* what an infinite element does to a vertex it moves is not specified */
                assert_true(isfinite(a) && isfinite(an) && isfinite(b) && isfinite(bn));
                assert_true(fabs((double)a - b) <= 1e-5 * fmax(1.0, fabs((double)b)));
                assert_true(fabs((double)an - bn) <= 1e-5);
            }
            spared += !uses0 && c >= 5 && c < 8;
            checked++;
        }
    }
    assert_int_equal(checked, 3 * N);
    assert_true(spared > 0); /* vertices with padded slots that do not list joint 0 */
    sk_skinned_mesh_destroy(m);
    free_prim(&rp);
}

/* More than 64 active morph targets take sk_skin_run's per-vertex path (the
 * deltas summed first, then the vertex skinned as a one-entry group): every
 * level against the double reference, on mixed influence counts. */
static void test_many_targets(void **st) {
    (void)st;
    enum { N = 120, K = 8, J = 24, T = 70 };
    rand_prim rp;
    make_prim(&rp, N, K, J, false);
    float *deltas = malloc(T * N * 3 * sizeof(float)), mw[T];
    sk_morph_target tg[T];
    memset(tg, 0, sizeof tg);
    for (uint32_t t = 0; t < T; t++) {
        for (uint32_t i = 0; i < N * 3; i++) deltas[t * N * 3 + i] = srand1() * 0.05f;
        tg[t].positions = deltas + t * N * 3;
        tg[t].normals = t % 2 ? deltas + t * N * 3 : NULL;
        mw[t] = t % 3 ? srand1() : 0.5f;
    }
    rp.p.targets = tg;
    rp.p.target_count = T;
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&rp.p, NULL, &m, NULL), SK_OK);
    for (int method = SK_SKIN_LBS; method <= SK_SKIN_DQS; method++) {
        sk_mat4 pal[J];
        sk_dual_quat dq[J];
        rand_palette(pal, J, method == SK_SKIN_DQS);
        if (method == SK_SKIN_DQS) assert_int_equal(sk_skin_dual_quats(pal, J, dq, NULL), SK_OK);
        const double lim = method == SK_SKIN_LBS ? LIM_LBS_NT : LIM_DQS;
        for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
            float op[N * 3], on[N * 3], ot[N * 4];
            sk_skin_job job = {.mesh = m, .method = (sk_skin_method)method, .simd = (sk_simd)l, .palette = pal,
                               .dual_quats = dq, .palette_count = J, .morph_weights = mw, .first_vertex = 3,
                               .out_positions = op, .out_normals = on, .out_tangents = ot};
            assert_int_equal(skin_run(&job, NULL), SK_OK);
            ref_err e = {0, 0, 0};
            for (uint32_t v = 3; v < N; v++) {
                ref_vertex rv;
                reference_vertex(&rp.p, v, pal, (sk_skin_method)method, mw, &rv);
                ref_compare(op + (v - 3) * 3, 3, on + (v - 3) * 3, ot + (v - 3) * 4, &rv, &e);
            }
            assert_true(e.p <= lim && e.n <= lim && e.t <= lim);
        }
    }
    sk_skinned_mesh_destroy(m);
    free(deltas);
    free_prim(&rp);
}

static void test_grouped(void **st) {
    (void)st;
    run_grouped(4, SK_SKIN_LBS, false, false);
    run_grouped(8, SK_SKIN_LBS, false, false);
    run_grouped(4, SK_SKIN_DQS, false, false);
    run_grouped(8, SK_SKIN_DQS, false, false);
    run_grouped(8, SK_SKIN_LBS, true, false);
    run_grouped(4, SK_SKIN_DQS, true, false);
    run_grouped(4, SK_SKIN_LBS, false, true);
    run_grouped(8, SK_SKIN_LBS, false, true);
    run_grouped(8, SK_SKIN_LBS, true, true);
    run_grouped(4, SK_SKIN_DQS, false, true);
    run_grouped(8, SK_SKIN_DQS, false, true);
    run_grouped(4, SK_SKIN_DQS, true, true);
}

/* Normalisation is scale-invariant at any magnitude (issue #14): normals of
 * length 1e25, 3e19 (squared length overflows float), 1e-18 and 1e-25
 * (squared length underflows) skin to the same unit normal as the unit input,
 * on every kernel (scalar, SSE2, AVX2; LBS and DQS; with and without morph
 * targets, which take different code paths); a zero normal stays zero. Before
 * the fix the SIMD kernels gave NaN above ~1.8e19 and the scalar one zero. */
static void run_extreme_normals(sk_skin_method method, bool morph) {
    enum { N = 67, K = 4, J = 12 };
    static const float scales[] = {1e25f, 3e19f, 1.0f, 1e-18f, 1e-25f, 0.0f, 1e37f};
    rand_prim unit;
    make_prim(&unit, N, K, J, false);
    sk_primitive big = unit.p; /* the same vertices, joints and weights; other normals */
    float *bigN = calloc(N * 3, sizeof(float)), *tn = calloc(N * 3, sizeof(float));
    big.normals = bigN;
    sk_morph_target tg = {0};
    for (uint32_t v = 0; v < N; v++) {
        float s = scales[v % (sizeof scales / sizeof scales[0])];
        for (int c = 0; c < 3; c++) {
            float n = unit.nrm[v * 3 + c];
            if (morph) /* base normal zero, the morph target carries the (scaled) normal */
                bigN[v * 3 + c] = 0.0f, tn[v * 3 + c] = n * s;
            else
                bigN[v * 3 + c] = n * s;
        }
    }
    if (morph) {
        tg.normals = tn;
        big.targets = &tg;
        big.target_count = 1;
    }
    sk_skinned_mesh *mu = NULL, *mb = NULL;
    assert_int_equal(sk_skinned_mesh_create(&unit.p, NULL, &mu, NULL), SK_OK);
    assert_int_equal(sk_skinned_mesh_create(&big, NULL, &mb, NULL), SK_OK);
    sk_mat4 pal[J];
    sk_dual_quat dq[J];
    rand_palette(pal, J, method == SK_SKIN_DQS);
    if (method == SK_SKIN_DQS) assert_int_equal(sk_skin_dual_quats(pal, J, dq, NULL), SK_OK);
    float mw[1] = {1.0f};
    float pu[N * 3], nu[N * 3], pb[N * 3], nb[N * 3];
    int checked = 0;
    for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
        sk_skin_job ju = {.mesh = mu, .method = method, .simd = (sk_simd)l, .palette = pal, .dual_quats = dq,
                          .palette_count = J, .out_positions = pu, .out_normals = nu};
        sk_skin_job jb = ju;
        jb.mesh = mb, jb.out_positions = pb, jb.out_normals = nb, jb.morph_weights = morph ? mw : NULL;
        assert_int_equal(skin_run(&ju, NULL), SK_OK);
        assert_int_equal(skin_run(&jb, NULL), SK_OK);
        for (uint32_t v = 0; v < N; v++) {
            float s = scales[v % (sizeof scales / sizeof scales[0])];
            for (int c = 0; c < 3; c++) {
                assert_true(isfinite(nb[v * 3 + c]));
                if (s == 0.0f)
                    assert_true(nb[v * 3 + c] == 0.0f);
                else if (fabsf(nb[v * 3 + c] - nu[v * 3 + c]) > 2e-5f) {
                    printf("%s%s %s vertex %u (normal x %g): %g vs %g\n", method == SK_SKIN_LBS ? "LBS" : "DQS",
                           morph ? "+morph" : "", sk_simd_name(sk_simd_resolve((sk_simd)l)), v, (double)s,
                           (double)nb[v * 3 + c], (double)nu[v * 3 + c]);
                    fail();
                }
            }
            checked++;
        }
    }
    assert_int_equal(checked, 4 * N);
    sk_skinned_mesh_destroy(mu), sk_skinned_mesh_destroy(mb);
    free(tn), free(bigN);
    free_prim(&unit);
}

/* A palette of more than 8,192 joints: the AVX2 and AVX-512 LBS kernels
 * address the palette through the joints times 8 (uint16), which such a mesh
 * cannot hold; they run the SSE2 kernel instead. Every level against the
 * scalar kernel, with and without tangents. */
static void test_large_palette(void **st) {
    (void)st;
    enum { N = 45, K = 4, J = 9000 };
    rand_prim rp;
    make_prim(&rp, N, K, J, false);
    rp.j[0] = J - 1; /* the palette size is the largest joint + 1 */
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&rp.p, NULL, &m, NULL), SK_OK);
    assert_int_equal(sk_skinned_mesh_palette_size(m), J);
    sk_mat4 *pal = malloc(J * sizeof *pal);
    rand_palette(pal, J, false);
    float out[2][3][N * 4];
    for (int tangents = 0; tangents < 2; tangents++)
        for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
            int o = l == SK_SIMD_SCALAR ? 0 : 1;
            sk_skin_job job = {.mesh = m, .method = SK_SKIN_LBS, .simd = (sk_simd)l, .palette = pal, .palette_count = J,
                               .out_positions = out[o][0], .out_normals = out[o][1],
                               .out_tangents = tangents ? out[o][2] : NULL};
            assert_int_equal(skin_run(&job, NULL), SK_OK);
            if (o) {
                assert_true(max_diff(out[1][0], out[0][0], N * 3) < 1e-5);
                assert_true(max_diff(out[1][1], out[0][1], N * 3) < 1e-5);
                if (tangents) assert_true(max_diff(out[1][2], out[0][2], N * 4) < 1e-5);
            }
        }
    free(pal);
    sk_skinned_mesh_destroy(m);
    free_prim(&rp);
}

static void test_extreme_normals(void **st) {
    (void)st;
    run_extreme_normals(SK_SKIN_LBS, false);
    run_extreme_normals(SK_SKIN_LBS, true);
    run_extreme_normals(SK_SKIN_DQS, false);
    run_extreme_normals(SK_SKIN_DQS, true);
}

static void test_levels_lbs4(void **st) { (void)st; run_levels(4, SK_SKIN_LBS, false); }
static void test_levels_lbs8(void **st) { (void)st; run_levels(8, SK_SKIN_LBS, false); }
static void test_levels_dqs4(void **st) { (void)st; run_levels(4, SK_SKIN_DQS, false); }
static void test_levels_dqs8(void **st) { (void)st; run_levels(8, SK_SKIN_DQS, false); }
static void test_levels_morph(void **st) {
    (void)st;
    run_levels(4, SK_SKIN_LBS, true);
    run_levels(8, SK_SKIN_DQS, true);
}

static void test_renormalise(void **st) {
    (void)st;
    float pos[9] = {0};
    uint16_t j[12] = {3, 1, 2, 0, 0, 0, 0, 0, 5, 5, 2, 2};
    float w[12] = {0.2f, 0.6f, 0.2f, 0.0f, 0, 0, 0, 0, 0.25f, 0.25f, 0.25f, 0.75f};
    sk_primitive p = {.mode = 4, .vertex_count = 3, .positions = pos, .influence_count = 4, .joints = j, .weights = w,
                      .material = -1};
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&p, NULL, &m, NULL), SK_OK);
    uint16_t jj[8];
    float ww[8];
    assert_int_equal(sk_skinned_mesh_vertex_influences(m, 0, jj, ww), 3);
    assert_int_equal(jj[0], 1);
    assert_float_equal(ww[0], 0.6f, 1e-6);
    assert_float_equal(ww[1] + ww[2], 0.4f, 1e-6);
    assert_int_equal(sk_skinned_mesh_vertex_influences(m, 1, jj, ww), 1); /* all zero -> first joint, weight 1 */
    assert_int_equal(jj[0], 0);
    assert_float_equal(ww[0], 1.0f, 0);
    assert_int_equal(sk_skinned_mesh_vertex_influences(m, 2, jj, ww), 4);
    assert_float_equal(ww[0], 0.5f, 1e-6); /* 0.75 / 1.5 */
    assert_int_equal(jj[0], 2);
    assert_int_equal(sk_skinned_mesh_palette_size(m), 6);
    /* Too small a palette is refused. */
    sk_mat4 pal[5];
    for (int i = 0; i < 5; i++) pal[i] = sk_mat4_identity();
    float out[9];
    sk_error err = {0};
    sk_skin_job job = {.mesh = m, .palette = pal, .palette_count = 5, .out_positions = out};
    assert_int_equal(skin_run(&job, &err), SK_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "palette"));
    job.out_normals = out;
    job.palette_count = 6;
    sk_mat4 pal6[6];
    for (int i = 0; i < 6; i++) pal6[i] = sk_mat4_identity();
    job.palette = pal6;
    assert_int_equal(skin_run(&job, &err), SK_ERR_INVALID_ARGUMENT); /* no normals in the mesh */
    job.out_normals = NULL;
    assert_int_equal(skin_run(&job, &err), SK_OK);
    job.method = SK_SKIN_DQS;
    assert_int_equal(skin_run(&job, &err), SK_ERR_INVALID_ARGUMENT); /* DQS without dual quats */
    sk_skinned_mesh_destroy(m);
}

static void test_dqs_refuses_scale(void **st) {
    (void)st;
    sk_transform x = {{1, 2, 3}, sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 0.5f), {1, 1.5f, 1}};
    sk_mat4 pal[2] = {sk_mat4_identity(), sk_mat4_from_transform(&x)};
    sk_dual_quat dq[2];
    sk_error err = {0};
    assert_int_equal(sk_skin_dual_quats(pal, 2, dq, &err), SK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "palette[1] has scale"));
    assert_non_null(strstr(err.message, "linear blend"));
    x.s = sk_vec3_make(-1, 1, 1);
    pal[1] = sk_mat4_from_transform(&x);
    assert_int_equal(sk_skin_dual_quats(pal, 2, dq, &err), SK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "reflection"));
    /* A rigid matrix round-trips through the dual quaternion. */
    x.s = sk_vec3_make(1, 1, 1);
    pal[1] = sk_mat4_from_transform(&x);
    assert_int_equal(sk_skin_dual_quats(pal, 2, dq, &err), SK_OK);
    assert_float_equal(fabsf(dq[1].real.w), fabsf(x.r.w), 1e-6);
}

/* Rigid single-influence vertices: DQS == LBS. */
static void test_dqs_equals_lbs_rigid(void **st) {
    (void)st;
    enum { N = 400, J = 16 };
    rand_prim rp;
    make_prim(&rp, N, 4, J, false);
    for (uint32_t v = 0; v < N; v++) {
        rp.w[v * 4] = 0.8f; /* one influence */
        rp.w[v * 4 + 1] = rp.w[v * 4 + 2] = rp.w[v * 4 + 3] = 0;
    }
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&rp.p, NULL, &m, NULL), SK_OK);
    sk_mat4 pal[J];
    sk_dual_quat dq[J];
    rand_palette(pal, J, true);
    assert_int_equal(sk_skin_dual_quats(pal, J, dq, NULL), SK_OK);
    float a[N * 3], b[N * 3], na[N * 3], nb[N * 3];
    for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
        sk_skin_job job = {.mesh = m, .method = SK_SKIN_LBS, .simd = (sk_simd)l, .palette = pal, .dual_quats = dq,
                           .palette_count = J, .out_positions = a, .out_normals = na};
        assert_int_equal(skin_run(&job, NULL), SK_OK);
        job.method = SK_SKIN_DQS;
        job.out_positions = b;
        job.out_normals = nb;
        assert_int_equal(skin_run(&job, NULL), SK_OK);
        assert_true(max_diff(a, b, N * 3) < 1e-5);
        assert_true(max_diff(na, nb, N * 3) < 1e-5);
    }
    sk_skinned_mesh_destroy(m);
    free_prim(&rp);
}

/* A cylinder along +Y (radius R, height 2) bound to joint 0 (base, y=0) and
 * joint 1 (y=1), weights blending over y in [0.5, 1.5]. Joint 1 twisted 180
 * degrees about Y. Volume from the rings' areas (shoelace) times height. */
enum { RINGS = 41, SEGS = 32 };
static double ring_volume(const float *pos) {
    double vol = 0;
    double area[RINGS], y[RINGS];
    for (int r = 0; r < RINGS; r++) {
        double a = 0, yy = 0;
        for (int s = 0; s < SEGS; s++) {
            const float *p = pos + (r * SEGS + s) * 3, *q = pos + (r * SEGS + (s + 1) % SEGS) * 3;
            a += (double)p[0] * q[2] - (double)q[0] * p[2];
            yy += p[1];
        }
        area[r] = fabs(a) * 0.5;
        y[r] = yy / SEGS;
    }
    for (int r = 0; r + 1 < RINGS; r++) vol += 0.5 * (area[r] + area[r + 1]) * (y[r + 1] - y[r]);
    return vol;
}

static void test_twisted_cylinder(void **st) {
    (void)st;
    const float R = 0.1f;
    float pos[RINGS * SEGS * 3];
    uint16_t joints[RINGS * SEGS * 4] = {0};
    float weights[RINGS * SEGS * 4] = {0};
    for (int r = 0; r < RINGS; r++)
        for (int s = 0; s < SEGS; s++) {
            int v = r * SEGS + s;
            float y = 2.0f * (float)r / (RINGS - 1), a = 6.2831853f * (float)s / SEGS;
            pos[v * 3 + 0] = R * cosf(a), pos[v * 3 + 1] = y, pos[v * 3 + 2] = R * sinf(a);
            float w1 = y < 0.5f ? 0.0f : y > 1.5f ? 1.0f : y - 0.5f;
            joints[v * 4] = 0, joints[v * 4 + 1] = 1;
            weights[v * 4] = 1.0f - w1, weights[v * 4 + 1] = w1;
        }
    sk_primitive p = {.mode = 4, .vertex_count = RINGS * SEGS, .positions = pos, .influence_count = 4,
                      .joints = joints, .weights = weights, .material = -1};
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(&p, NULL, &m, NULL), SK_OK);
    /* palette: joint 0 identity; joint 1 = T(0,1,0) * Ry(180) * T(0,-1,0) (twist about the axis at y=1) */
    sk_transform bind = {{0, 1, 0}, sk_quat_identity(), {1, 1, 1}};
    sk_transform posed = {{0, 1, 0}, sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), 3.14159265f), {1, 1, 1}};
    sk_mat4 bm = sk_mat4_from_transform(&bind), pm = sk_mat4_from_transform(&posed), ib;
    assert_true(sk_mat4_invert_affine(&bm, &ib));
    sk_mat4 pal[2] = {sk_mat4_identity(), sk_mat4_mul(&pm, &ib)};
    sk_dual_quat dq[2];
    assert_int_equal(sk_skin_dual_quats(pal, 2, dq, NULL), SK_OK);
    static float lbs[RINGS * SEGS * 3], dqs[RINGS * SEGS * 3];
    sk_skin_job job = {.mesh = m, .method = SK_SKIN_LBS, .palette = pal, .dual_quats = dq, .palette_count = 2,
                       .out_positions = lbs};
    assert_int_equal(skin_run(&job, NULL), SK_OK);
    job.method = SK_SKIN_DQS;
    job.out_positions = dqs;
    assert_int_equal(skin_run(&job, NULL), SK_OK);
    double v0 = ring_volume(pos), vl = ring_volume(lbs), vd = ring_volume(dqs);
    /* Radius at the middle ring (y = 1, weights 0.5/0.5). */
    const int mid = (RINGS - 1) / 2;
    double rl = 0, rd = 0;
    for (int s = 0; s < SEGS; s++) {
        const float *a = lbs + (mid * SEGS + s) * 3, *b = dqs + (mid * SEGS + s) * 3;
        rl += sqrt(a[0] * a[0] + a[2] * a[2]) / SEGS;
        rd += sqrt(b[0] * b[0] + b[2] * b[2]) / SEGS;
    }
    printf("twisted cylinder: volume rest %.6f, LBS %.6f (%.1f%%), DQS %.6f (%.1f%%); mid radius LBS %.4f DQS %.4f\n",
           v0, vl, 100 * vl / v0, vd, 100 * vd / v0, rl, rd);
    assert_true(fabs(vd / v0 - 1.0) < 0.01);  /* DQS keeps volume */
    assert_true(vl / v0 < 0.75);              /* LBS loses it ("candy wrapper") */
    assert_true(rl < 1e-5 + 0.001);           /* and collapses to the axis in the middle */
    assert_true(fabs(rd - R) < 1e-4);
    sk_skinned_mesh_destroy(m);
}

/* ---- Closed forms ------------------------------------------------------------
 * Palettes with exact entries (0, +-1 and small integers) and results worked
 * out by hand, for every kernel, 4 and 8 influences, 19 vertices (SIMD groups
 * of 4 and 8 plus a remainder). */
enum { CF_N = 19 };

static void closed_form_run(const sk_primitive *p, const sk_mat4 *pal, uint32_t np, sk_skin_method method, sk_simd level,
                            float *pos, float *nrm) {
    sk_skinned_mesh *m = NULL;
    assert_int_equal(sk_skinned_mesh_create(p, NULL, &m, NULL), SK_OK);
    sk_dual_quat dq[2];
    assert_int_equal(sk_skin_dual_quats(pal, np, dq, NULL), SK_OK);
    sk_skin_job job = {.mesh = m, .method = method, .simd = level, .palette = pal, .dual_quats = dq,
                       .palette_count = np, .out_positions = pos, .out_normals = nrm};
    assert_int_equal(skin_run(&job, NULL), SK_OK);
    sk_skinned_mesh_destroy(m);
}

/* |got - want| <= lim * eps * mag per coordinate. */
static void near3(const float *got, const double want[3], double mag, double lim) {
    for (int c = 0; c < 3; c++) {
        if (fabs(got[c] - want[c]) > lim * EPS32 * mag)
            fprintf(stderr, "closed form: got (%.9g %.9g %.9g), want (%.9g %.9g %.9g)\n", got[0], got[1], got[2],
                    want[0], want[1], want[2]);
        assert_true(fabs(got[c] - want[c]) <= lim * EPS32 * mag);
    }
}

static void test_closed_forms(void **st) {
    (void)st;
    float pos[CF_N * 3], nrm[CF_N * 3], w[CF_N * 8];
    uint16_t jt[CF_N * 8];
    /* Column-major matrices. Ry90: x -> -z, z -> x (R e_x = (0,0,-1), R e_z = (1,0,0)),
     * then translate (1,2,3). Rz90: R e_x = (0,1,0), R e_y = (-1,0,0). T: translate (0,2,0). */
    const sk_mat4 ry90t = {{0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 2, 3, 1}};
    const sk_mat4 rz90 = {{0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const sk_mat4 ty2 = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1}};
    const sk_mat4 id = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    /* The DQS blend of the identity (weight 1/4) and Rz90 (3/4): the real parts
     * 1/4 (0,0,0,1) + 3/4 (0,0,sin 45, cos 45) normalised are a rotation about Z
     * by theta = 2 atan2(3/4 sin 45, 1/4 + 3/4 cos 45) = 1.19428 rad (68.43 deg),
     * so x = (1,0,0) goes to (cos theta, sin theta, 0) = (0.36764, 0.92997, 0):
     * length 1, where LBS gives (1/4, 3/4, 0), length 0.79. */
    const double s45 = sqrt(0.5), theta = 2 * atan2(0.75 * s45, 0.25 + 0.75 * s45);
    const uint32_t ks[2] = {4, 8};
    long checked = 0;
    for (int ki = 0; ki < 2; ki++) {
        const uint32_t k = ks[ki];
        for (int l = SK_SIMD_SCALAR; l <= SK_SIMD_AVX512; l++) {
            for (int method = SK_SKIN_LBS; method <= SK_SKIN_DQS; method++) {
                /* 1. Rigid: every vertex on joint 1 = Ry90 then (1,2,3): p = (a, -1, 2) -> (2 + 1, -1 + 2, -a + 3);
                 *    normal (1,0,0) -> (0,0,-1). The weight is split over duplicate slots of the same joint
                 *    (0.5 + 0.25 + 0.25) in the last vertices: still rigid. */
                memset(w, 0, sizeof w), memset(jt, 0, sizeof jt);
                for (int v = 0; v < CF_N; v++) {
                    float a = 0.5f + 0.25f * (float)v;
                    pos[3 * v] = a, pos[3 * v + 1] = -1, pos[3 * v + 2] = 2;
                    nrm[3 * v] = 1, nrm[3 * v + 1] = 0, nrm[3 * v + 2] = 0;
                    jt[k * v] = 1, w[k * v] = 1;
                    if (v >= 16) jt[k * v + 1] = jt[k * v + 2] = 1, w[k * v] = 0.5f, w[k * v + 1] = w[k * v + 2] = 0.25f;
                }
                sk_primitive p = {.mode = 4, .vertex_count = CF_N, .positions = pos, .normals = nrm,
                                  .influence_count = k, .joints = jt, .weights = w, .material = -1};
                sk_mat4 pal[2] = {id, ry90t};
                float op[CF_N * 3], on[CF_N * 3];
                closed_form_run(&p, pal, 2, (sk_skin_method)method, (sk_simd)l, op, on);
                for (int v = 0; v < CF_N; v++) {
                    double a = 0.5 + 0.25 * v, want[3] = {3, 1, 3 - a}, wn[3] = {0, 0, -1};
                    /* LBS: exact products and sums of a few rounded terms; DQS: the rotation goes through a
                     * quaternion with sqrt(2)/2 entries: a few roundings (limits as in run_levels). */
                    near3(op + 3 * v, want, 2 + fabs(a) + 3, method == SK_SKIN_LBS ? LIM_LBS_P : LIM_DQS);
                    near3(on + 3 * v, wn, 1, method == SK_SKIN_LBS ? LIM_LBS_NT : LIM_DQS);
                    checked += 2;
                }
                /* 2. Two joints, weights 1/4 on the identity and 3/4 on Rz90 (vertices 0..9) or on a translation by
                 *    (0,2,0) (vertices 10..18); p = (1,0,0) scaled by s = 1 + v/8 (exact), normal (1,0,0). */
                memset(w, 0, sizeof w), memset(jt, 0, sizeof jt);
                for (int v = 0; v < CF_N; v++) {
                    float sc = 1.0f + (float)v / 8.0f;
                    pos[3 * v] = sc, pos[3 * v + 1] = 0, pos[3 * v + 2] = 0;
                    nrm[3 * v] = 1, nrm[3 * v + 1] = 0, nrm[3 * v + 2] = 0;
                    /* the 3/4 first in even vertices, second in odd ones (the order must not matter) */
                    jt[k * v] = v & 1 ? 0 : 1, w[k * v] = v & 1 ? 0.25f : 0.75f;
                    jt[k * v + 1] = v & 1 ? 1 : 0, w[k * v + 1] = v & 1 ? 0.75f : 0.25f;
                }
                sk_mat4 pr[2] = {id, rz90}, pt[2] = {id, ty2};
                float op2[CF_N * 3], on2[CF_N * 3];
                closed_form_run(&p, pr, 2, (sk_skin_method)method, (sk_simd)l, op, on);
                closed_form_run(&p, pt, 2, (sk_skin_method)method, (sk_simd)l, op2, on2);
                for (int v = 0; v < CF_N; v++) {
                    double sc = 1.0 + v / 8.0;
                    const float *gp = v < 10 ? op + 3 * v : op2 + 3 * v, *gn = v < 10 ? on + 3 * v : on2 + 3 * v;
                    double want[3], wn[3];
                    if (v >= 10) { /* a translation blends linearly in both: p + 3/4 (0,2,0) */
                        want[0] = sc, want[1] = 1.5, want[2] = 0;
                        wn[0] = 1, wn[1] = 0, wn[2] = 0;
                    } else if (method == SK_SKIN_LBS) { /* 1/4 p + 3/4 Rz90 p */
                        want[0] = 0.25 * sc, want[1] = 0.75 * sc, want[2] = 0;
                        double ln = sqrt(0.25 * 0.25 + 0.75 * 0.75);
                        wn[0] = 0.25 / ln, wn[1] = 0.75 / ln, wn[2] = 0;
                    } else { /* the blended rotation by theta */
                        want[0] = sc * cos(theta), want[1] = sc * sin(theta), want[2] = 0;
                        wn[0] = cos(theta), wn[1] = sin(theta), wn[2] = 0;
                    }
                    near3(gp, want, sc + 2, method == SK_SKIN_LBS ? LIM_LBS_P : LIM_DQS);
                    near3(gn, wn, method == SK_SKIN_LBS ? 1.0 / sqrt(0.25 * 0.25 + 0.75 * 0.75) : 1,
                          method == SK_SKIN_LBS ? LIM_LBS_NT : LIM_DQS);
                    if (v < 10) { /* and the lengths say which is which */
                        double len = sqrt((double)gp[0] * gp[0] + (double)gp[1] * gp[1]) / sc;
                        assert_true(method == SK_SKIN_LBS ? fabs(len - 0.790569) < 1e-5 : fabs(len - 1) < 1e-5);
                    }
                    checked += 2;
                }
            }
        }
    }
    printf("closed forms: %ld positions and normals checked (LBS and DQS, 4 and 8 influences, 4 kernels)\n", checked);
    assert_int_equal(checked, 2L * 4 * 2 * CF_N * 2 * 2);
}

/* ---- three.js oracle --------------------------------------------------------- */

static double num(const cJSON *a, int i) { return cJSON_GetArrayItem(a, i)->valuedouble; }

typedef struct oracle_stats {
    int models;           /* models with vertex sets */
    long expected, lbs;   /* vertex positions in the oracles x 4 kernels; compared with LBS */
    long dqs;             /* single-influence vertices also compared with DQS */
    double worst;         /* of the limit */
    double worst_eps;     /* |ours - three| / E in float32 epsilons, assets with unit rotation keys */
} oracle_stats;

/* Depth of a joint in the node hierarchy (1 for a root). */
static int joint_depth(const sk_skeleton *s, uint32_t j) {
    int d = 1;
    for (int32_t p = s->parents[j]; p >= 0; p = s->parents[p]) d++;
    return d;
}

static void oracle_model(const char *dir, const char *model, oracle_stats *os) {
    char path[2048], opath[2048];
    snprintf(opath, sizeof opath, "%s/%s/oracle.three.json", dir, model);
    char *text = sk_test_read_file(opath, NULL);
    if (!text) fprintf(stderr, "%s: cannot read\n", opath);
    assert_non_null(text);
    cJSON *o = cJSON_Parse(text);
    free(text);
    assert_non_null(o);
    const cJSON *hdr = cJSON_GetObjectItem(o, "header");
    const char *file = cJSON_GetObjectItem(cJSON_GetObjectItem(hdr, "asset"), "file")->valuestring;
    snprintf(path, sizeof path, "%s/%s/%s", dir, model, file);
    const cJSON *sets = cJSON_GetObjectItem(o, "vertexSets");
    if (cJSON_GetArraySize(sets) == 0) { /* no skinned or morphed mesh in this model */
        cJSON_Delete(o);
        return;
    }
    os->models++;
    sk_asset *as = NULL;
    sk_error err = {0};
    sk_result r = sk_gltf_load_file(path, NULL, &as, &err);
    if (r != SK_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    assert_int_equal(r, SK_OK);
    double E = cJSON_GetObjectItem(o, "sceneExtent")->valuedouble;
    E = fmax(1.0, E); /* the oracle's E = max(1, sceneExtent) */
    /* The limit per coordinate, from the reference's precision. three.js samples keys in float32
     * as we do, then computes matrices and skinning in float64: the difference is (a) our float32
     * rounding through the hierarchy (local matrix, one product per level, the inverse bind
     * matrix, the blend and M p: about 3 roundings of half an epsilon per level plus 10,
     * on values bounded by E), and (b) where rotation keys are not unit length (u =
     * header.assetStats.rotationKeyMaxUnitError) we normalise them and three does not: up to
     * 4u in positions (the oracle's header.tolerances.nonUnitQuaternions). So
     * limit = ((3 depth + 10) / 2 eps + 4u) E, depth = the deepest joint's. */
    const cJSON *stats = cJSON_GetObjectItem(hdr, "assetStats");
    double u = cJSON_GetObjectItem(stats, "rotationKeyMaxUnitError")->valuedouble;
    const sk_skeleton *s = as->skeleton;
    int depth = 1;
    for (uint32_t j = 0; j < s->joint_count; j++) depth = depth > joint_depth(s, j) ? depth : joint_depth(s, j);
    const double plim = ((3.0 * depth + 10.0) / 2.0 * EPS32 + 4.0 * u) * E;
    uint32_t n = s->joint_count;
    sk_transform *local = calloc(n, sizeof *local);
    sk_mat4 *world = calloc(n, sizeof *world);
    float *weights = calloc(s->weight_total + 1, sizeof *weights);
    uint32_t maxj = 1;
    for (uint32_t i = 0; i < as->skin_count; i++)
        if (as->skins[i].joint_count > maxj) maxj = as->skins[i].joint_count;
    sk_mat4 *pal = calloc(maxj, sizeof *pal);
    sk_dual_quat *dq = calloc(maxj, sizeof *dq);
    int nsets = cJSON_GetArraySize(sets);
    sk_skinned_mesh **meshes = calloc((size_t)nsets, sizeof *meshes);
    for (int k = 0; k < nsets; k++) {
        const cJSON *set = cJSON_GetArrayItem(sets, k);
        uint32_t j = as->node_to_joint[cJSON_GetObjectItem(set, "node")->valueint];
        const sk_primitive *p = &as->meshes[as->joint_mesh[j]].primitives[cJSON_GetObjectItem(set, "primitive")->valueint];
        assert_int_equal(sk_skinned_mesh_create(p, NULL, &meshes[k], &err), SK_OK);
    }
    double worst = 0, worst_abs = 0;
    long cmp = 0, cmp_dqs = 0, expected = 0;
    const cJSON *clips = cJSON_GetObjectItem(o, "clips");
    for (int pass = -1; pass < cJSON_GetArraySize(clips); pass++) {
        const cJSON *list = pass < 0 ? NULL : cJSON_GetObjectItem(cJSON_GetArrayItem(clips, pass), "samples");
        int count = pass < 0 ? 1 : cJSON_GetArraySize(list);
        for (int si = 0; si < count; si++) {
            const cJSON *smp = pass < 0 ? cJSON_GetObjectItem(o, "rest") : cJSON_GetArrayItem(list, si);
            if (pass >= 0) {
                const char *mode = cJSON_GetObjectItem(smp, "mode")->valuestring;
                sk_loop_mode loop = strcmp(mode, "once_clamped") == 0 ? SK_LOOP_CLAMP : SK_LOOP_REPEAT;
                assert_int_equal(sk_clip_sample(as->clips[pass], s, cJSON_GetObjectItem(smp, "t")->valuedouble, loop, SK_POSE_OF(s, local, weights), NULL),
                                 SK_OK);
            } else {
                sk_pose_rest(s, SK_POSE_OF(s, local, weights), NULL);
            }
            sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
            const cJSON *vs;
            int k = 0;
            assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(smp, "vertices")), nsets);
            cJSON_ArrayForEach(vs, cJSON_GetObjectItem(smp, "vertices")) {
                const cJSON *set = cJSON_GetArrayItem(sets, k);
                const sk_skinned_mesh *mesh = meshes[k++];
                uint32_t j = as->node_to_joint[cJSON_GetObjectItem(vs, "node")->valueint];
                const sk_skin *sk = as->joint_skin[j] >= 0 ? &as->skins[as->joint_skin[j]] : NULL;
                const sk_mat4 *use = &world[j];
                uint32_t use_n = 1;
                if (sk) {
                    sk_skin_palette(sk, world, UINT32_MAX, pal, (sk)->joint_count, NULL);
                    use = pal;
                    use_n = sk->joint_count;
                }
                /* DQS where the palette is rigid, on vertices with a single influence: there it is
                 * the same rigid transform as LBS, so three.js's positions are its reference too. */
                bool rigid = sk_skin_dual_quats(use, use_n, dq, NULL) == SK_OK;
                const float *mw = s->weight_count[j] ? weights + s->weight_offset[j] : NULL;
                uint32_t nv = sk_skinned_mesh_vertex_count(mesh);
                float *out = malloc(nv * 3 * sizeof(float));
                const cJSON *idx = cJSON_GetObjectItem(set, "indices"), *xw = cJSON_GetObjectItem(vs, "world");
                assert_int_equal(cJSON_GetArraySize(xw), cJSON_GetArraySize(idx));
                expected += 4L * cJSON_GetArraySize(xw);
                for (int l = 0; l < 8; l++) {
                    sk_skin_method method = l < 4 ? SK_SKIN_LBS : SK_SKIN_DQS;
                    sk_simd level = (sk_simd)(SK_SIMD_SCALAR + l % 4);
                    if (method == SK_SKIN_DQS && !rigid) continue;
                    sk_skin_job job = {.mesh = mesh, .method = method, .simd = level, .palette = use,
                                       .dual_quats = dq, .palette_count = use_n, .morph_weights = mw,
                                       .out_positions = out};
                    assert_int_equal(skin_run(&job, &err), SK_OK);
                    for (int q = 0; q < cJSON_GetArraySize(xw); q++) {
                        uint32_t v = (uint32_t)cJSON_GetArrayItem(idx, q)->valueint;
                        uint16_t ij[8];
                        float iw[8];
                        if (method == SK_SKIN_DQS && sk_skinned_mesh_vertex_influences(mesh, v, ij, iw) != 1) continue;
                        const cJSON *x = cJSON_GetArrayItem(xw, q);
                        double d = 0;
                        for (int c = 0; c < 3; c++) d = fmax(d, fabs(out[v * 3 + c] - num(x, c)));
                        double ratio = d / plim;
                        if (ratio > 1.0)
                            fprintf(stderr, "MISMATCH %s clip %d sample %d vertex %u (%s %s): %.3g x the limit\n",
                                    model, pass, si, v, method == SK_SKIN_LBS ? "LBS" : "DQS",
                                    sk_simd_name(level), ratio);
                        assert_true(ratio <= 1.0);
                        worst = fmax(worst, ratio);
                        worst_abs = fmax(worst_abs, d);
                        if (method == SK_SKIN_LBS) cmp++;
                        else cmp_dqs++;
                    }
                }
                free(out);
            }
        }
    }
    assert_int_equal(cmp, expected); /* every position of the oracle was compared, with each kernel */
    printf("%-20s %5ld LBS and %4ld DQS vertex positions; worst %.2f eps x E (u = %.2g = %.1f eps, depth %d, "
           "limit %.1f eps x E): %.3f of the limit\n",
           model, cmp, cmp_dqs, worst_abs / E / EPS32, u, u / EPS32, depth, plim / E / EPS32, worst);
    os->expected += expected;
    os->lbs += cmp;
    os->dqs += cmp_dqs;
    os->worst = fmax(os->worst, worst);
    if (u < 10 * EPS32) os->worst_eps = fmax(os->worst_eps, worst_abs / E / EPS32);
    for (int k = 0; k < nsets; k++) sk_skinned_mesh_destroy(meshes[k]);
    free(meshes);
    free(local), free(world), free(weights), free(pal), free(dq);
    sk_asset_destroy(as);
    cJSON_Delete(o);
}

/* The models of ../shared/assets/gltf with skinned or morphed meshes (oracle
 * vertexSets): CesiumMan, RiggedFigure, RiggedSimple, SimpleSkin, SimpleMorph,
 * AnimatedMorphCube, AnimatedMorphSphere. Found from the folder (all 12 models)
 * and checked against these numbers, so a missing model fails. */
enum { ALL_MODELS = 12, VERTEX_MODELS = 7 };

static void test_oracle_vertices(void **st) {
    (void)st;
    const char *shared = sk_test_require_shared();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/assets/gltf", shared);
    char *names[256];
    int count = sk_test_model_dirs(dir, names, 256);
    oracle_stats os = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < count; i++) {
        oracle_model(dir, names[i], &os);
        free(names[i]);
    }
    printf("oracle: %d models, %d with skinned/morphed vertices: %ld positions compared with LBS (4 kernels), "
           "%ld single-influence ones with DQS; worst %.3f of the limit; %.2f eps x E on assets with unit keys\n",
           count, os.models, os.lbs, os.dqs, os.worst, os.worst_eps);
    assert_int_equal(count, ALL_MODELS);
    assert_int_equal(os.models, VERTEX_MODELS);
    assert_int_equal(os.lbs, os.expected);
    assert_true(os.dqs > 0);
}

/* The antipodal fix in every kernel (the SoA DQS paths too: 9 vertices = one
 * group of 8 + a remainder; on x86-64 a block of 8 + a rest vertex): two
 * joints with the same rigid transform, one stored as -q, blended 50/50,
 * listed in either order in turn (so the lanes of a block refer to either
 * joint), must give that rigid transform (without the fix the blend would
 * cancel to zero). */
static void test_dqs_antipodal(void **st) {
    (void)st;
    enum { N = 9 };
    float pos[N * 3], nrm[N * 3], w[N * 4];
    uint16_t jt[N * 4];
    for (int v = 0; v < N; v++) {
        pos[3 * v] = 0.1f * (float)v, pos[3 * v + 1] = 1.0f - 0.05f * (float)v, pos[3 * v + 2] = 0.3f;
        nrm[3 * v] = 0, nrm[3 * v + 1] = 0, nrm[3 * v + 2] = 1;
        jt[4 * v] = (uint16_t)(v % 2), jt[4 * v + 1] = (uint16_t)(1 - v % 2), jt[4 * v + 2] = 0, jt[4 * v + 3] = 0;
        w[4 * v] = 0.5f, w[4 * v + 1] = 0.5f, w[4 * v + 2] = 0, w[4 * v + 3] = 0;
    }
    sk_primitive p = {0};
    p.mode = 4, p.vertex_count = N, p.positions = pos, p.normals = nrm;
    p.influence_count = 4, p.joints = jt, p.weights = w, p.material = -1;
    sk_skinned_mesh *m = NULL;
    sk_error err = {0};
    assert_int_equal(sk_skinned_mesh_create(&p, NULL, &m, &err), SK_OK);
#ifdef SK_SKIN_X86
    assert_true(m->block_count == 1 && m->blocks[0].count == 8 && m->blocks[0].ref[0] != m->blocks[0].ref[1]);
#endif
    sk_transform x = {{0.5f, -0.2f, 1.0f}, sk_quat_from_axis_angle(sk_vec3_make(0.3f, 1, 0.2f), 2.5f), {1, 1, 1}};
    sk_mat4 pal[2] = {sk_mat4_from_transform(&x), sk_mat4_from_transform(&x)};
    sk_dual_quat dq[2];
    assert_int_equal(sk_skin_dual_quats(pal, 2, dq, &err), SK_OK);
    dq[1].real = sk_quat_make(-dq[1].real.x, -dq[1].real.y, -dq[1].real.z, -dq[1].real.w);
    dq[1].dual = sk_quat_make(-dq[1].dual.x, -dq[1].dual.y, -dq[1].dual.z, -dq[1].dual.w);
    sk_simd levels[4] = {SK_SIMD_SCALAR, SK_SIMD_SSE2, SK_SIMD_AVX2, SK_SIMD_AVX512};
    for (int l = 0; l < 4; l++) {
        float op[N * 3], on[N * 3];
        sk_skin_job job = {.mesh = m, .method = SK_SKIN_DQS, .simd = levels[l], .dual_quats = dq, .palette_count = 2,
                           .out_positions = op, .out_normals = on};
        assert_int_equal(skin_run(&job, &err), SK_OK);
        for (int v = 0; v < N; v++) {
            sk_vec3 want = sk_mat4_transform_point(&pal[0], sk_vec3_make(pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]));
            sk_vec3 wn = sk_vec3_normalize(sk_mat4_transform_dir(&pal[0], sk_vec3_make(0, 0, 1)));
            float w3[3] = {want.x, want.y, want.z}, n3[3] = {wn.x, wn.y, wn.z};
            assert_true(max_diff(op + 3 * v, w3, 3) < 1e-5);
            assert_true(max_diff(on + 3 * v, n3, 3) < 1e-5);
        }
    }
    sk_skinned_mesh_destroy(m);
}

/* Every SIMD level this CPU supports ran, for LBS and for DQS: the CPU's
 * levels from its features read here (sk_test_cpu_features), as
 * src/core/simd.c defines them: SSE2 on x86-64; AVX2 with FMA; AVX-512 F and
 * VL with AVX2 and FMA (the level also runs DQS, whose AVX-512 level is its
 * AVX2 kernel). The levels above are asked for explicitly and resolved by
 * the library, which quietly runs a level the CPU lacks as the best it has:
 * here such a level is named as not run, and under CI a level the CPU has
 * but no job ran at fails. */
static void test_simd_levels_run(void **st) {
    (void)st;
    static const char *const names[] = {"scalar", "sse2", "avx2", "avx512"}; /* bit level - SK_SIMD_SCALAR */
    const sk_test_cpu f = sk_test_cpu_features();
    bool avx2 = f.avx2 && f.fma, avx512 = avx2 && f.avx512f && f.avx512vl;
    unsigned cpu = 1u << SK_SIMD_SCALAR | (unsigned)(f.x86_64 && f.sse2) << SK_SIMD_SSE2 |
                   (unsigned)(f.x86_64 && avx2) << SK_SIMD_AVX2 | (unsigned)(f.x86_64 && avx512) << SK_SIMD_AVX512;
    /* one line: the levels both LBS and DQS ran */
    if (simd_ran[0] != simd_ran[1])
        printf("note: LBS ran levels 0x%x, DQS 0x%x (bit 1 << sk_simd): the line below counts those both ran\n",
               simd_ran[0], simd_ran[1]);
    sk_test_simd_check(sk_test_simd_levels("skinning kernels, LBS and DQS each",
                                           (simd_ran[0] & simd_ran[1]) >> SK_SIMD_SCALAR, cpu >> SK_SIMD_SCALAR, names, 4));
    /* the library's own detection (core/simd.c) names the best of those
     * levels: scalar alone in a -DSK_SIMD=OFF build */
    sk_simd best = f.x86_64 && avx512 ? SK_SIMD_AVX512 : f.x86_64 && avx2 ? SK_SIMD_AVX2 : f.x86_64 && f.sse2 ? SK_SIMD_SSE2 : SK_SIMD_SCALAR;
    assert_int_equal(sk_simd_best(), best);
    assert_int_equal(sk_simd_resolve(SK_SIMD_AVX512), best);
}

int main(void) {
    printf("skinning kernels on this CPU: best %s\n", sk_simd_name(sk_simd_best()));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels_lbs4),          cmocka_unit_test(test_levels_lbs8),
        cmocka_unit_test(test_levels_dqs4),          cmocka_unit_test(test_levels_dqs8),
        cmocka_unit_test(test_grouped),              cmocka_unit_test(test_blocks),               cmocka_unit_test(test_nonfinite_palette),              cmocka_unit_test(test_many_targets),              cmocka_unit_test(test_levels_morph),         cmocka_unit_test(test_renormalise),
        cmocka_unit_test(test_dqs_refuses_scale),    cmocka_unit_test(test_dqs_equals_lbs_rigid),
        cmocka_unit_test(test_twisted_cylinder),     cmocka_unit_test(test_oracle_vertices),
        cmocka_unit_test(test_dqs_antipodal),        cmocka_unit_test(test_extreme_normals),        cmocka_unit_test(test_large_palette),        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_simd_levels_run), /* last: the levels the tests above ran */
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
