/* Harness: CPU skinning of a primitive built from the input (up to 64
 * vertices, 4 or 8 influences with any joint indices and any weights — NaN,
 * negative, all zero —, optional normals, tangents and up to 3 morph
 * targets) with a palette of rigid or scaled transforms from the input.
 * sk_skinned_mesh_create, then sk_skin_run with LBS (and DQS when the
 * palette is rigid) on every SIMD level the CPU has. Promises checked: the
 * kernels agree with the scalar reference within 1e-4 of the coordinates'
 * magnitude, and every output is finite when positions, morph weights and
 * the palette are (coordinates and morph weights within 1e15; normals, whose
 * length does not matter, with morph weights up to 1e30). */
#include "fuzz_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXV 64
#define MAXP 16

static sk_mat4 trs(sk_vec3 t, sk_quat r, float s) {
    sk_transform x;
    x.t = t;
    x.r = r;
    x.s = sk_vec3_make(s, s, s);
    return sk_mat4_from_transform(&x);
}

/* Normals and tangents are unit vectors (the kernels renormalise what they
 * blend; a near-zero input direction has no meaningful result to compare). */
static void unit(float *v) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l < 0.1f) {
        v[0] = 0.0f;
        v[1] = 1.0f;
        v[2] = 0.0f;
        return;
    }
    for (int k = 0; k < 3; k++) v[k] /= l;
}

static void compare(const float *ref, const float *got, size_t n, const char *what, sk_simd level) {
    float mag = 1.0f;
    for (size_t i = 0; i < n; i++)
        if (isfinite(ref[i]) && fabsf(ref[i]) > mag) mag = fabsf(ref[i]);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(ref[i]) && !isfinite(got[i])) continue;
        if (!(fabsf(ref[i] - got[i]) <= 1e-4f * mag))
            fz_fail("%s: %s gives %g where scalar gives %g (element %zu, magnitude %g)", what, sk_simd_name(level),
                    got[i], ref[i], i, mag);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_bytes b = {data, size};
    static float pos[MAXV * 3], nrm[MAXV * 3], tan[MAXV * 4], wts[MAXV * 8], mpos[3][MAXV * 3], mnrm[3][MAXV * 3];
    static uint16_t jnt[MAXV * 8];
    static uint32_t idx[MAXV];
    sk_primitive prim;
    memset(&prim, 0, sizeof prim);
    uint32_t nv = 1 + fz_u8(&b) % MAXV;
    uint8_t flags = fz_u8(&b);
    uint32_t infl = (flags & 1) ? 8 : ((flags & 2) ? 0 : 4);
    uint32_t np = 1 + fz_u8(&b) % MAXP;
    bool finite_in = true, finite_n = true;
    for (uint32_t v = 0; v < nv; v++) {
        for (int k = 0; k < 3; k++) {
            pos[v * 3 + k] = fz_float(&b, -2.0f, 2.0f);
            if (!isfinite(pos[v * 3 + k]) || fabsf(pos[v * 3 + k]) > 1e15f) finite_in = false;
            nrm[v * 3 + k] = fz_range(&b, -1.0f, 1.0f);
            tan[v * 4 + k] = fz_range(&b, -1.0f, 1.0f);
        }
        unit(&nrm[v * 3]);
        unit(&tan[v * 4]);
        tan[v * 4 + 3] = (fz_u8(&b) & 1) ? 1.0f : -1.0f;
        for (uint32_t k = 0; k < infl; k++) {
            jnt[v * infl + k] = (uint16_t)(fz_u8(&b) % np);
            wts[v * infl + k] = (flags & 4) ? fz_raw_float(&b) : fz_range(&b, 0.0f, 1.0f);
        }
        idx[v] = v;
    }
    sk_morph_target targets[3];
    uint32_t nt = (flags >> 3) % 4;
    float mw[3];
    for (uint32_t t = 0; t < nt; t++) {
        for (uint32_t i = 0; i < nv * 3; i++) {
            mpos[t][i] = fz_range(&b, -0.5f, 0.5f);
            mnrm[t][i] = fz_range(&b, -0.5f, 0.5f);
        }
        targets[t].positions = mpos[t];
        targets[t].normals = (flags & 32) ? mnrm[t] : NULL;
        targets[t].tangents = NULL;
        mw[t] = fz_float(&b, -1.0f, 2.0f);
        if (!isfinite(mw[t]) || fabsf(mw[t]) > 1e15f) finite_in = false;
        if (!isfinite(mw[t]) || fabsf(mw[t]) > 1e30f) finite_n = false;
    }
    prim.mode = 4;
    prim.vertex_count = nv;
    prim.positions = pos;
    prim.normals = (flags & 64) ? nrm : NULL;
    prim.tangents = (flags & 128) ? tan : NULL;
    prim.influence_count = infl;
    prim.joints = infl ? jnt : NULL;
    prim.weights = infl ? wts : NULL;
    prim.index_count = nv;
    prim.indices = idx;
    prim.target_count = nt;
    prim.targets = nt ? targets : NULL;
    prim.material = -1;

    sk_mat4 palette[MAXP];
    bool rigid = true;
    for (uint32_t p = 0; p < np; p++) {
        sk_vec3 t = {fz_range(&b, -3.0f, 3.0f), fz_range(&b, -3.0f, 3.0f), fz_range(&b, -3.0f, 3.0f)};
        sk_vec3 axis = {fz_range(&b, -1.0f, 1.0f), fz_range(&b, -1.0f, 1.0f), fz_range(&b, -1.0f, 1.0f)};
        float s = 1.0f;
        if (fz_u8(&b) % 4 == 0) {
            s = fz_range(&b, 0.01f, 3.0f);
            rigid = false;
        }
        palette[p] = trs(t, sk_quat_from_axis_angle(axis, fz_range(&b, -3.2f, 3.2f)), s);
    }

    sk_error err = {0};
    sk_skinned_mesh *mesh = NULL;
    sk_result r = sk_skinned_mesh_create(&prim, NULL, &mesh, &err);
    if (r == SK_ERR_INVALID_ARGUMENT || r == SK_ERR_INVALID_DATA) return 0; /* e.g. NaN positions */
    if (r != SK_OK) fz_fail("sk_skinned_mesh_create: %s", err.message);
    if (sk_skinned_mesh_palette_size(mesh) > np) fz_fail("palette size %u > %u joints used", sk_skinned_mesh_palette_size(mesh), np);

    sk_dual_quat dq[MAXP];
    bool have_dq = sk_skin_dual_quats(palette, np, dq, &err) == SK_OK;
    if (rigid && !have_dq) fz_fail("sk_skin_dual_quats refused a rigid palette: %s", err.message);
    static float ref_p[MAXV * 3], ref_n[MAXV * 3], ref_t[MAXV * 4], out_p[MAXV * 3], out_n[MAXV * 3], out_t[MAXV * 4];
    for (int method = 0; method < 2; method++) {
        if (method == SK_SKIN_DQS && !have_dq) continue;
        for (int level = SK_SIMD_SCALAR; level <= SK_SIMD_AVX2; level++) {
            if (level != SK_SIMD_SCALAR && sk_simd_resolve((sk_simd)level) != (sk_simd)level) continue;
            sk_skin_job job;
            memset(&job, 0, sizeof job);
            job.mesh = mesh;
            job.method = (sk_skin_method)method;
            job.simd = (sk_simd)level;
            job.palette = palette;
            job.dual_quats = dq;
            job.palette_count = np;
            job.morph_weights = nt ? mw : NULL;
            bool scalar = level == SK_SIMD_SCALAR;
            job.out_positions = scalar ? ref_p : out_p;
            job.out_normals = prim.normals ? (scalar ? ref_n : out_n) : NULL;
            job.out_tangents = prim.tangents ? (scalar ? ref_t : out_t) : NULL;
            if (sk_skin_run(&job, &err) != SK_OK) fz_fail("sk_skin_run: %s", err.message);
            const char *what = method ? "DQS" : "LBS";
            if (scalar) {
                if (finite_in && !fz_finite(ref_p, (size_t)nv * 3)) fz_fail("%s: finite input, positions not finite", what);
            } else if (finite_in) { /* beyond 1e15 a huge sum may round differently per kernel */
                compare(ref_p, out_p, (size_t)nv * 3, what, (sk_simd)level);
                if (prim.tangents) compare(ref_t, out_t, (size_t)nv * 4, what, (sk_simd)level);
            }
            /* Normals are compared up to morph weights of 1e30: morphed normals up to ~1e30 long,
             * whose squared length overflows float (every kernel then normalises through the same
             * slow path; before that fix SIMD gave NaN and scalar zero above ~1.8e19). */
            if (!scalar && finite_n && prim.normals) compare(ref_n, out_n, (size_t)nv * 3, what, (sk_simd)level);
        }
    }
    sk_skinned_mesh_destroy(mesh);
    return 0;
}
