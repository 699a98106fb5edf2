/* Private: the body of the float SoA blend kernels (anim/soa_blend_kernels.h
 * includes it once per lane width SKK_W with SKK_V, SKK_I, SKK_FN and
 * SKK_ATTR defined, after core/soa_kernels.h has instantiated the loads,
 * stores, selects and the slerp series of the same names). A row is 8
 * floats (8 joints); the kernels loop over its 8 / SKK_W parts. The body
 * undefines its parameters at its end. */

#define SKK_PARTS (8 / SKK_W)

/* Four rotation rows, all 8 lanes, a t per lane (u: 8 floats):
 * sk_quat_slerp(a, b, u[l]) per lane by core's series (skk_slerp_part);
 * returns the lanes (bits) for the scalar function, as skk_slerp_part. */
SKK_ATTR static inline unsigned SKK_FN(skk_slerp_rows_u)(const float *a, const float *b, const float *u, float *out) {
    unsigned far = 0;
    for (int p = 0; p < SKK_PARTS; p++)
        far |= SKK_FN(skk_slerp_part)(a, b, p * SKK_W, SKK_FN(skk_ld)(u + p * SKK_W), NULL, NULL, out) << (p * SKK_W);
    return far;
}

/* The SKK_W lanes at offset o of one SoA group (80 floats): sk_blend_two's
 * per-joint work with weight tt (per lane, != 0), rotations by
 * skm_quat_nlerp (identity where the sum is zero or not finite, as
 * skm_quat_normalize). out may be a or b. */
SKK_ATTR static inline void SKK_FN(skk_blend_part)(const float *a, const float *b, int o, SKK_V tt, float *out) {
    const SKK_V one = SKK_FN(skk_splat)(1.0f), zero = SKK_FN(skk_splat)(0.0f);
    const SKK_V u = one - tt;
    for (int r = 0; r < 3; r++) { /* translation and scale: skm_vec3_lerp */
        SKK_V x = SKK_FN(skk_ld)(a + SKK_ROW_T + r * 8 + o), y = SKK_FN(skk_ld)(b + SKK_ROW_T + r * 8 + o);
        SKK_V s = SKK_FN(skk_ld)(a + SKK_ROW_S + r * 8 + o), w = SKK_FN(skk_ld)(b + SKK_ROW_S + r * 8 + o);
        SKK_FN(skk_st)(out + SKK_ROW_T + r * 8 + o, x + (y - x) * tt);
        SKK_FN(skk_st)(out + SKK_ROW_S + r * 8 + o, s + (w - s) * tt);
    }
    const float *ar = a + SKK_ROW_R + o, *br = b + SKK_ROW_R + o;
    SKK_V ax = SKK_FN(skk_ld)(ar), ay = SKK_FN(skk_ld)(ar + 8), az = SKK_FN(skk_ld)(ar + 16), aw = SKK_FN(skk_ld)(ar + 24);
    SKK_V bx = SKK_FN(skk_ld)(br), by = SKK_FN(skk_ld)(br + 8), bz = SKK_FN(skk_ld)(br + 16), bw = SKK_FN(skk_ld)(br + 24);
    SKK_V dot = ax * bx + ay * by + az * bz + aw * bw;
    /* skm_quat_nlerp's b * s * t with s = +-1 as b * (+-t): the same bits (a product with +-1 is exact) */
    SKK_V st = SKK_FN(skk_sel)(dot < zero, -tt, tt);
    SKK_V qx = ax * u + bx * st, qy = ay * u + by * st, qz = az * u + bz * st, qw = aw * u + bw * st;
    SKK_V l = SKK_FN(skk_sqrt)(qx * qx + qy * qy + qz * qz + qw * qw);
    /* !(l > 0) || !finite(l): the identity */
    SKK_I ok = (l > zero) & (l < SKK_FN(skk_splat)(__builtin_inff()));
    SKK_V inv = one / l;
    float *orr = out + SKK_ROW_R + o;
    SKK_FN(skk_st)(orr, SKK_FN(skk_sel)(ok, qx * inv, zero));
    SKK_FN(skk_st)(orr + 8, SKK_FN(skk_sel)(ok, qy * inv, zero));
    SKK_FN(skk_st)(orr + 16, SKK_FN(skk_sel)(ok, qz * inv, zero));
    SKK_FN(skk_st)(orr + 24, SKK_FN(skk_sel)(ok, qw * inv, one));
}

/* One SoA group with one t != 0 (sk_blend_two_soa). */
SKK_ATTR static inline void SKK_FN(skk_blend_group)(const float *a, const float *b, float t, float *out) {
    const SKK_V tt = SKK_FN(skk_splat)(t);
    for (int p = 0; p < SKK_PARTS; p++) SKK_FN(skk_blend_part)(a, b, p * SKK_W, tt, out);
}

/* n SoA groups with one t != 0 (floats: 80 per group). */
SKK_ATTR static inline void SKK_FN(skk_blend_groups)(const float *a, const float *b, float t, float *out, size_t floats) {
    for (size_t g = 0; g < floats; g += 80u) SKK_FN(skk_blend_group)(a + g, b + g, t, out + g);
}

#undef SKK_PARTS
#undef SKK_W
#undef SKK_V
#undef SKK_I
#undef SKK_FN
#undef SKK_ATTR
