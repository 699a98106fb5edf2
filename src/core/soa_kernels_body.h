/* Private: the body of the SoA kernels (soa_kernels.h includes it once per
 * lane width SKK_W with SKK_V, SKK_I, SKK_FN and SKK_ATTR defined). A row is
 * 8 floats (8 joints); the kernels loop over its 8 / SKK_W parts. */

#define SKK_PARTS (8 / SKK_W)

SKK_ATTR static inline SKK_V SKK_FN(skk_ld)(const float *p) {
    SKK_V v;
    memcpy(&v, p, sizeof v);
    return v;
}
SKK_ATTR static inline void SKK_FN(skk_st)(float *p, SKK_V v) { memcpy(p, &v, sizeof v); }
SKK_ATTR static inline SKK_V SKK_FN(skk_splat)(float x) {
#if defined(SK_SOA_X86) && SKK_W == 8
    return (SKK_V)_mm256_set1_ps(x);
#elif defined(SK_SOA_X86)
    return (SKK_V)_mm_set1_ps(x);
#else
    SKK_V v;
    for (int i = 0; i < SKK_W; i++) v[i] = x;
    return v;
#endif
}
/* m ? a : b per lane (m: all ones or zero). */
SKK_ATTR static inline SKK_V SKK_FN(skk_sel)(SKK_I m, SKK_V a, SKK_V b) {
    return (SKK_V)(((SKK_I)a & m) | ((SKK_I)b & ~m));
}
SKK_ATTR static inline int SKK_FN(skk_bits)(SKK_I m) {
#if defined(SK_SOA_X86) && SKK_W == 8
    return _mm256_movemask_ps((__m256)m);
#elif defined(SK_SOA_X86)
    return _mm_movemask_ps((__m128)m);
#else
    int r = 0;
    for (int i = 0; i < SKK_W; i++) r |= (m[i] != 0) << i;
    return r;
#endif
}
/* Lane mask of part p from the 8-bit mask. */
SKK_ATTR static inline SKK_I SKK_FN(skk_lanes)(unsigned mask, int p) {
#if SKK_W == 8
    const SKK_I bit = {1, 2, 4, 8, 16, 32, 64, 128};
#else
    const SKK_I bit = {1, 2, 4, 8};
#endif
    SKK_I m = bit & (int32_t)((mask >> (p * SKK_W)) & ((1u << SKK_W) - 1u));
    return m != 0;
}
SKK_ATTR static inline SKK_V SKK_FN(skk_sqrt)(SKK_V x) {
#if defined(SK_SOA_X86) && SKK_W == 8
    return (SKK_V)_mm256_sqrt_ps((__m256)x);
#elif defined(SK_SOA_X86)
    return (SKK_V)_mm_sqrt_ps((__m128)x);
#else
    for (int i = 0; i < SKK_W; i++) x[i] = sqrtf(x[i]);
    return x;
#endif
}

/* out rows = a + (b - a) u (skm_vec3_lerp), `rows` rows. */
SKK_ATTR static inline void SKK_FN(skk_lerp_rows)(const float *a, const float *b, float u, unsigned rows, float *out) {
    SKK_V uu = SKK_FN(skk_splat)(u);
    for (unsigned i = 0; i < rows * 8; i += SKK_W) {
        SKK_V x = SKK_FN(skk_ld)(a + i), y = SKK_FN(skk_ld)(b + i);
        SKK_FN(skk_st)(out + i, x + (y - x) * uu);
    }
}

/* dst rows = src rows in the lanes of mask (bit l: lane l), `rows` rows. */
SKK_ATTR static inline void SKK_FN(skk_store_rows)(const float *src, unsigned rows, unsigned mask, float *dst) {
    if (mask == 0xffu) {
        for (unsigned i = 0; i < rows * 8; i += SKK_W) SKK_FN(skk_st)(dst + i, SKK_FN(skk_ld)(src + i));
        return;
    }
    for (int p = 0; p < SKK_PARTS; p++) {
        SKK_I m = SKK_FN(skk_lanes)(mask, p);
        for (unsigned r = 0; r < rows; r++) {
            unsigned i = r * 8 + (unsigned)(p * SKK_W);
            SKK_FN(skk_st)(dst + i, SKK_FN(skk_sel)(m, SKK_FN(skk_ld)(src + i), SKK_FN(skk_ld)(dst + i)));
        }
    }
}

/* Four rows of rotations (x, y, z, w rows), the SKK_W lanes at offset o:
 * sk_quat_slerp(a, b, t) per lane, the series branch (core/math.c). Returns
 * the lanes (bits, of this part) that need the scalar function instead (more
 * than 120 degrees apart, t outside [0, 1], non-finite, zero length); their
 * out values are not defined. */
/* kt, kd: with one t for every lane, the series' coefficients u[i] t^2 - v[i] and
 * u[i] (1 - t)^2 - v[i] computed once in scalar (the same float operations as a lane's);
 * NULL: computed per lane. */
SKK_ATTR static inline unsigned SKK_FN(skk_slerp_part)(const float *a, const float *b, int o, SKK_V t, const float *kt,
                                                       const float *kd, float *out) {
    const SKK_V one = SKK_FN(skk_splat)(1.0f), zero = SKK_FN(skk_splat)(0.0f);
    const SKK_V d = one - t, t2 = t * t, d2 = d * d;
    SKK_V ax = SKK_FN(skk_ld)(a + o), ay = SKK_FN(skk_ld)(a + 8 + o), az = SKK_FN(skk_ld)(a + 16 + o),
          aw = SKK_FN(skk_ld)(a + 24 + o);
    SKK_V bx = SKK_FN(skk_ld)(b + o), by = SKK_FN(skk_ld)(b + 8 + o), bz = SKK_FN(skk_ld)(b + 16 + o),
          bw = SKK_FN(skk_ld)(b + 24 + o);
    SKK_V x = ax * bx + ay * by + az * bz + aw * bw;
    SKK_I bad = x != x;
    SKK_I neg = x < zero;
    SKK_V sgn = SKK_FN(skk_sel)(neg, SKK_FN(skk_splat)(-1.0f), one);
    x = x * sgn;
    x = SKK_FN(skk_sel)(x > one, one, x);
    bad |= x < SKK_FN(skk_splat)(SKM_SLERP_TRIG_BELOW);
    if (!kt) bad |= ~((t >= zero) & (t <= one)); /* the series holds for t in [0, 1] (kt: skk_slerp_rows, u in [0, 1]) */
    SKK_V xm1 = x - one;
    SKK_I m3 = xm1 > SKK_FN(skk_splat)(SKM_SLERP_3_TERMS_ABOVE);
    SKK_I m6 = xm1 > SKK_FN(skk_splat)(SKM_SLERP_6_TERMS_ABOVE);
    int b3 = SKK_FN(skk_bits)(m3), b6 = SKK_FN(skk_bits)(m6), all = (1 << SKK_W) - 1;
    int start = b3 == all ? 2 : b6 == all ? 5 : 7;
    SKK_V ct = one, cd = one;
    for (int i = start; i >= 0; i--) {
        SKK_V nct, ncd;
        if (kt) {
            nct = one + SKK_FN(skk_splat)(kt[i]) * xm1 * ct;
            ncd = one + SKK_FN(skk_splat)(kd[i]) * xm1 * cd;
        } else {
            SKK_V ui = SKK_FN(skk_splat)(skm_slerp_u[i]), vi = SKK_FN(skk_splat)(skm_slerp_v[i]);
            nct = one + (ui * t2 - vi) * xm1 * ct;
            ncd = one + (ui * d2 - vi) * xm1 * cd;
        }
        SKK_I use = i >= 6 ? ~m6 : i >= 3 ? ~m3 : (m3 | ~m3);
        ct = SKK_FN(skk_sel)(use, nct, ct);
        cd = SKK_FN(skk_sel)(use, ncd, cd);
    }
    ct = ct * (t * sgn);
    cd = cd * d;
    SKK_V qx = cd * ax + ct * bx, qy = cd * ay + ct * by, qz = cd * az + ct * bz, qw = cd * aw + ct * bw;
    SKK_V l2 = qx * qx + qy * qy + qz * qz + qw * qw;
    bad |= ~(l2 > zero);
    SKK_V inv = one / SKK_FN(skk_sqrt)(l2);
    SKK_FN(skk_st)(out + o, qx * inv);
    SKK_FN(skk_st)(out + 8 + o, qy * inv);
    SKK_FN(skk_st)(out + 16 + o, qz * inv);
    SKK_FN(skk_st)(out + 24 + o, qw * inv);
    return (unsigned)SKK_FN(skk_bits)(bad);
}

/* All 8 lanes of four rotation rows with one t, u in [0, 1] (the sampler's
 * fraction between two keys; the series holds there only): the lanes (bits)
 * for the scalar function, as skk_slerp_part. _k: with the series'
 * coefficients at u made once by the caller (skk_slerp_coefs) for every
 * block of a sample. */
SKK_ATTR static inline unsigned SKK_FN(skk_slerp_rows_k)(const float *a, const float *b, float u, const float *kt, const float *kd,
                                                         float *out) {
    unsigned far = 0;
    const SKK_V t = SKK_FN(skk_splat)(u);
    for (int p = 0; p < SKK_PARTS; p++) far |= SKK_FN(skk_slerp_part)(a, b, p * SKK_W, t, kt, kd, out) << (p * SKK_W);
    return far;
}
SKK_ATTR static inline unsigned SKK_FN(skk_slerp_rows)(const float *a, const float *b, float u, float *out) {
    float kt[8], kd[8];
    skk_slerp_coefs(u, kt, kd);
    return SKK_FN(skk_slerp_rows_k)(a, b, u, kt, kd, out);
}

/* One SoA group's local matrices (skm_transform_rs and the translation):
 * out rows 0-8 the 3x3 columns b[c][k] at row 3c + k, rows 9-11 t.x, t.y, t.z
 * (12 x 8 floats). */
SKK_ATTR static inline void SKK_FN(skk_rs_group)(const float *g, float *out) {
    const SKK_V one = SKK_FN(skk_splat)(1.0f);
    for (int p = 0; p < SKK_PARTS; p++) {
        int o = p * SKK_W;
        SKK_V qx = SKK_FN(skk_ld)(g + SKK_ROW_R + o), qy = SKK_FN(skk_ld)(g + SKK_ROW_R + 8 + o);
        SKK_V qz = SKK_FN(skk_ld)(g + SKK_ROW_R + 16 + o), qw = SKK_FN(skk_ld)(g + SKK_ROW_R + 24 + o);
        SKK_V x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
        SKK_V xx = qx * x2, xy = qx * y2, xz = qx * z2;
        SKK_V yy = qy * y2, yz = qy * z2, zz = qz * z2;
        SKK_V wx = qw * x2, wy = qw * y2, wz = qw * z2;
        SKK_V sx = SKK_FN(skk_ld)(g + SKK_ROW_S + o), sy = SKK_FN(skk_ld)(g + SKK_ROW_S + 8 + o);
        SKK_V sz = SKK_FN(skk_ld)(g + SKK_ROW_S + 16 + o);
        SKK_FN(skk_st)(out + 0 * 8 + o, (one - (yy + zz)) * sx);
        SKK_FN(skk_st)(out + 1 * 8 + o, (xy + wz) * sx);
        SKK_FN(skk_st)(out + 2 * 8 + o, (xz - wy) * sx);
        SKK_FN(skk_st)(out + 3 * 8 + o, (xy - wz) * sy);
        SKK_FN(skk_st)(out + 4 * 8 + o, (one - (xx + zz)) * sy);
        SKK_FN(skk_st)(out + 5 * 8 + o, (yz + wx) * sy);
        SKK_FN(skk_st)(out + 6 * 8 + o, (xz + wy) * sz);
        SKK_FN(skk_st)(out + 7 * 8 + o, (yz - wx) * sz);
        SKK_FN(skk_st)(out + 8 * 8 + o, (one - (xx + yy)) * sz);
        for (int r = 0; r < 3; r++) SKK_FN(skk_st)(out + (9 + r) * 8 + o, SKK_FN(skk_ld)(g + SKK_ROW_T + r * 8 + o));
    }
}

#undef SKK_PARTS
#undef SKK_W
#undef SKK_V
#undef SKK_I
#undef SKK_FN
#undef SKK_ATTR
