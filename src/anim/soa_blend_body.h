/* Private: the body of the N-layer SoA blend in double
 * (anim/soa_blend_kernels.h includes it once per double-vector width SKD_D
 * with SKD_VD, SKD_VF, SKD_VL, SKD_FN and SKD_ATTR defined; its loads,
 * stores and selects serve soa_layers_body.h too). sk_blend_poses
 * (anim/blend.c) with no masks or channel sets: accumulation in double in
 * input order, the rest pose filling a weight sum below one (or not:
 * no_fill), rotations by normalised lerp on the shortest arc against the
 * running sum; every operation in its order, so the same bits. The body
 * undefines its parameters at its end. w[i] > 0 for every input here (the
 * caller, soa_layers_blend.c, drops the others); W is their sum in that
 * order. */

SKD_ATTR static inline SKD_VD SKD_FN(skd_ld)(const float *p) {
    SKD_VF f;
    memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, SKD_VD);
}
SKD_ATTR static inline void SKD_FN(skd_st)(float *p, SKD_VD v) {
    SKD_VF f = __builtin_convertvector(v, SKD_VF);
    memcpy(p, &f, sizeof f);
}
SKD_ATTR static inline SKD_VD SKD_FN(skd_splat)(double x) {
    SKD_VD v;
    for (int i = 0; i < SKD_D; i++) v[i] = x;
    return v;
}
SKD_ATTR static inline SKD_VD SKD_FN(skd_sel)(SKD_VL m, SKD_VD a, SKD_VD b) {
    return (SKD_VD)(((SKD_VL)a & m) | ((SKD_VL)b & ~m));
}
SKD_ATTR static inline SKD_VD SKD_FN(skd_sqrt)(SKD_VD x) {
#if defined(SK_SOA_X86) && SKD_D == 4
    return (SKD_VD)_mm256_sqrt_pd((__m256d)x);
#elif defined(SK_SOA_X86) && SKD_D == 2
    return (SKD_VD)_mm_sqrt_pd((__m128d)x);
#else
    for (int i = 0; i < SKD_D; i++) x[i] = sqrt(x[i]);
    return x;
#endif
}

/* One SoA group: in[i] the inputs' groups, w[i] their weights, W the sum,
 * rest the skeleton's rest_soa group. */
SKD_ATTR static inline void SKD_FN(skd_blend_group)(const float *const *in, const float *w, uint32_t n, double W,
                                                    bool fill, const float *rest, float *out) {
    const SKD_VD zero = SKD_FN(skd_splat)(0.0);
    for (int o = 0; o < 8; o += SKD_D) {
        /* translation (rows 0-2) and scale (rows 7-9): blend_vec */
        for (int ch = 0; ch < 2; ch++) {
            unsigned row = ch ? SKK_ROW_S : SKK_ROW_T;
            SKD_VD acc[3] = {zero, zero, zero};
            for (uint32_t i = 0; i < n; i++) {
                SKD_VD wi = SKD_FN(skd_splat)((double)w[i]);
                for (int c = 0; c < 3; c++) acc[c] += wi * SKD_FN(skd_ld)(in[i] + row + c * 8 + o);
            }
            for (int c = 0; c < 3; c++) {
                SKD_VD r;
                if (fill && W < 1.0) r = acc[c] + SKD_FN(skd_splat)(1.0 - W) * SKD_FN(skd_ld)(rest + row + c * 8 + o);
                else r = acc[c] / SKD_FN(skd_splat)(W);
                SKD_FN(skd_st)(out + row + c * 8 + o, r);
            }
        }
        /* rotation: blend_rot_nlerp */
        SKD_VD a[4] = {zero, zero, zero, zero};
        for (uint32_t i = 0; i < n; i++) {
            SKD_VD q[4];
            for (int k = 0; k < 4; k++) q[k] = SKD_FN(skd_ld)(in[i] + SKK_ROW_R + k * 8 + o);
            SKD_VD wi = SKD_FN(skd_splat)((double)w[i]), s = wi;
            if (i > 0) {
                SKD_VD dot = a[0] * q[0] + a[1] * q[1] + a[2] * q[2] + a[3] * q[3];
                s = SKD_FN(skd_sel)(dot >= zero, wi, -wi);
            }
            for (int k = 0; k < 4; k++) a[k] += s * q[k];
        }
        if (fill && W < 1.0) {
            SKD_VD rq[4];
            for (int k = 0; k < 4; k++) rq[k] = SKD_FN(skd_ld)(rest + SKK_ROW_R + k * 8 + o);
            SKD_VD dot = a[0] * rq[0] + a[1] * rq[1] + a[2] * rq[2] + a[3] * rq[3];
            SKD_VD s = SKD_FN(skd_sel)(dot >= zero, SKD_FN(skd_splat)(1.0 - W), SKD_FN(skd_splat)(W - 1.0));
            for (int k = 0; k < 4; k++) a[k] += s * rq[k];
        }
        SKD_VD l = SKD_FN(skd_sqrt)(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        SKD_VL ok = l > zero;
        for (int k = 0; k < 4; k++)
            SKD_FN(skd_st)(out + SKK_ROW_R + k * 8 + o, SKD_FN(skd_sel)(ok, a[k] / l, SKD_FN(skd_splat)(k == 3 ? 1.0 : 0.0)));
    }
}

#undef SKD_D
#undef SKD_VD
#undef SKD_VF
#undef SKD_VL
#undef SKD_FN
#undef SKD_ATTR
