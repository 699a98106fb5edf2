/* Private: the body of the SoA layer kernels (soa_layers.c includes it once
 * per width: SKK_W floats with SKK_V, SKK_I, SKK_FN, SKK_ATTR and SKD_D
 * doubles with SKD_VD, SKD_VL, SKD_FN defined; core/soa_kernels.h and
 * anim/soa_blend_kernels.h give the loads, stores, selects and blend
 * kernels of those names). One SoA group (8 joints, 80 floats) per call;
 * every lane computes what the sk_pose function computes for its joint,
 * operation by operation (no fused multiply-add), so the same bits. The
 * body undefines its parameters. */

#define SLA_PARTS (8 / SKK_W)

/* sk_blend_two's joint loop for one group: u[l] the lane's t * mask
 * (0 in padding lanes); a where u == 0. out may be a or b. */
SKK_ATTR static void SKK_FN(sla_two_group)(const float *a, const float *b, const float *u, bool slerp, float *out) {
    float tmp[SK_SOA_GROUP_FLOATS] __attribute__((aligned(32)));
    for (int p = 0; p < SLA_PARTS; p++) SKK_FN(skk_blend_part)(a, b, p * SKK_W, SKK_FN(skk_ld)(u + p * SKK_W), tmp);
    if (slerp) { /* sk_quat_slerp: the series eight lanes at a time, the far lanes one by one */
        unsigned far = SKK_FN(skk_slerp_rows_u)(a + SKK_ROW_R, b + SKK_ROW_R, u, tmp + SKK_ROW_R);
        for (; far; far &= far - 1) {
            unsigned l = (unsigned)__builtin_ctz(far);
            if (u[l] != 0.0f) sla_put_q(tmp + SKK_ROW_R, l, sk_quat_slerp(sla_rot(a, l), sla_rot(b, l), u[l]));
        }
    }
    const SKK_V zero = SKK_FN(skk_splat)(0.0f);
    for (int p = 0; p < SLA_PARTS; p++) {
        int o = p * SKK_W;
        SKK_I keep = SKK_FN(skk_ld)(u + o) == zero;
        for (unsigned r = 0; r < 10; r++)
            SKK_FN(skk_st)(out + r * 8 + o, SKK_FN(skk_sel)(keep, SKK_FN(skk_ld)(a + r * 8 + o), SKK_FN(skk_ld)(tmp + r * 8 + o)));
    }
}

/* sk_pose_apply_additive's slerp(identity, delta, w) of one group into dr
 * (rows x, y, z, w): the series eight lanes at a time, the far lanes one
 * by one. */
SKK_ATTR static inline void SKK_FN(sla_additive_slerp)(const float *d, const float *w, float *dr) {
    bool trivial = true; /* every lane's weight 0 (left as it is) or 1 (the delta itself): no slerp */
    for (int l = 0; l < 8; l++) trivial = trivial && (w[l] == 0.0f || w[l] == 1.0f);
    if (trivial) {
        memcpy(dr, d + SKK_ROW_R, 32 * sizeof(float));
        return;
    }
    unsigned far = SKK_FN(skk_slerp_rows_u)(sla_identity_rows, d + SKK_ROW_R, w, dr);
    for (; far; far &= far - 1) {
        unsigned l = (unsigned)__builtin_ctz(far);
        if (w[l] != 0.0f && w[l] != 1.0f) sla_put_q(dr, l, sk_quat_slerp(sk_quat_identity(), sla_rot(d, l), w[l]));
    }
}

/* The rest of sk_pose_apply_additive's joint loop for one group, its
 * slerps in dr: w[l] the lane's weight * mask (0 in padding lanes: the
 * joint is left as it is). */
SKK_ATTR static inline void SKK_FN(sla_additive_finish)(float *io, const float *d, const float *w, const float *dr) {
    const SKK_V zero = SKK_FN(skk_splat)(0.0f), one = SKK_FN(skk_splat)(1.0f);
    for (int p = 0; p < SLA_PARTS; p++) {
        int o = p * SKK_W;
        SKK_V W = SKK_FN(skk_ld)(w + o);
        SKK_I skip = W == zero, whole = W == one;
        for (unsigned r = 0; r < 3; r++) { /* t += dt w; s *= 1 + (ds - 1) w (sk_vec3_lerp(1, ds, w)) */
            float *t = io + SKK_ROW_T + r * 8 + o, *s = io + SKK_ROW_S + r * 8 + o;
            SKK_V tv = SKK_FN(skk_ld)(t), sv = SKK_FN(skk_ld)(s);
            SKK_V dt = SKK_FN(skk_ld)(d + SKK_ROW_T + r * 8 + o), ds = SKK_FN(skk_ld)(d + SKK_ROW_S + r * 8 + o);
            SKK_FN(skk_st)(t, SKK_FN(skk_sel)(skip, tv, tv + dt * W));
            SKK_FN(skk_st)(s, SKK_FN(skk_sel)(skip, sv, sv * (one + (ds - one) * W)));
        }
        /* r = normalize(r * dq), dq = delta where w == 1 (skm_quat_mul, skm_quat_normalize) */
        float *q = io + SKK_ROW_R + o;
        SKK_V ax = SKK_FN(skk_ld)(q), ay = SKK_FN(skk_ld)(q + 8), az = SKK_FN(skk_ld)(q + 16), aw = SKK_FN(skk_ld)(q + 24);
        const float *dq = d + SKK_ROW_R + o;
        SKK_V bx = SKK_FN(skk_sel)(whole, SKK_FN(skk_ld)(dq), SKK_FN(skk_ld)(dr + o));
        SKK_V by = SKK_FN(skk_sel)(whole, SKK_FN(skk_ld)(dq + 8), SKK_FN(skk_ld)(dr + 8 + o));
        SKK_V bz = SKK_FN(skk_sel)(whole, SKK_FN(skk_ld)(dq + 16), SKK_FN(skk_ld)(dr + 16 + o));
        SKK_V bw = SKK_FN(skk_sel)(whole, SKK_FN(skk_ld)(dq + 24), SKK_FN(skk_ld)(dr + 24 + o));
        SKK_V x = aw * bx + ax * bw + ay * bz - az * by, y = aw * by - ax * bz + ay * bw + az * bx;
        SKK_V z = aw * bz + ax * by - ay * bx + az * bw, ww = aw * bw - ax * bx - ay * by - az * bz;
        SKK_V l = SKK_FN(skk_sqrt)(x * x + y * y + z * z + ww * ww);
        SKK_I ok = (l > zero) & (l < SKK_FN(skk_splat)(__builtin_inff()));
        SKK_V inv = one / l;
        SKK_FN(skk_st)(q, SKK_FN(skk_sel)(skip, ax, SKK_FN(skk_sel)(ok, x * inv, zero)));
        SKK_FN(skk_st)(q + 8, SKK_FN(skk_sel)(skip, ay, SKK_FN(skk_sel)(ok, y * inv, zero)));
        SKK_FN(skk_st)(q + 16, SKK_FN(skk_sel)(skip, az, SKK_FN(skk_sel)(ok, z * inv, zero)));
        SKK_FN(skk_st)(q + 24, SKK_FN(skk_sel)(skip, aw, SKK_FN(skk_sel)(ok, ww * inv, one)));
    }
}

/* n (1-4) consecutive groups (io, d: their first; w: 8 factors each) as
 * sla_additive_group each, step by step: the slerps' and the
 * normalisations' chains of dependent operations are long, and independent
 * ones side by side overlap. */
SKK_ATTR static void SKK_FN(sla_additive_groups)(float *io, const float *d, const float *w, unsigned n) {
    float dr[4][32] __attribute__((aligned(32)));
    for (unsigned g = 0; g < n; g++) SKK_FN(sla_additive_slerp)(d + g * SK_SOA_GROUP_FLOATS, w + 8 * g, dr[g]);
    for (unsigned g = 0; g < n; g++)
        SKK_FN(sla_additive_finish)(io + g * SK_SOA_GROUP_FLOATS, d + g * SK_SOA_GROUP_FLOATS, w + 8 * g, dr[g]);
}

/* sk_pose_apply_additive_nlerp's weighted delta rotations of one group into
 * dr (rows x, y, z, w; layers.c additive_nlerp_q per lane): (1 - w)
 * identity + w d, d on the identity's hemisphere, unnormalised (the product
 * with io's rotation is normalised in sla_additive_finish). */
SKK_ATTR static inline void SKK_FN(sla_additive_nlerp_rows)(const float *d, const float *w, float *dr) {
    const SKK_V zero = SKK_FN(skk_splat)(0.0f), one = SKK_FN(skk_splat)(1.0f), m1 = SKK_FN(skk_splat)(-1.0f);
    const float *q = d + SKK_ROW_R;
    for (int p = 0; p < SLA_PARTS; p++) {
        int o = p * SKK_W;
        SKK_V W = SKK_FN(skk_ld)(w + o), dw = SKK_FN(skk_ld)(q + 24 + o);
        SKK_V sg = SKK_FN(skk_sel)(dw < zero, m1, one);
        for (unsigned r = 0; r < 3; r++) SKK_FN(skk_st)(dr + r * 8 + o, SKK_FN(skk_ld)(q + r * 8 + o) * sg * W);
        SKK_FN(skk_st)(dr + 24 + o, (dw * sg - one) * W + one);
    }
}

/* sla_additive_groups with the nlerp rotations (sk_pose_apply_additive_nlerp). */
SKK_ATTR static void SKK_FN(sla_additive_nlerp_groups)(float *io, const float *d, const float *w, unsigned n) {
    float dr[32] __attribute__((aligned(32)));
    for (unsigned g = 0; g < n; g++) {
        SKK_FN(sla_additive_nlerp_rows)(d + g * SK_SOA_GROUP_FLOATS, w + 8 * g, dr);
        SKK_FN(sla_additive_finish)(io + g * SK_SOA_GROUP_FLOATS, d + g * SK_SOA_GROUP_FLOATS, w + 8 * g, dr);
    }
}

/* sk_pose_make_additive's joint loop for one group: t = p.t - r.t,
 * r = normalize(inverse(r.r) * p.r) (sk_quat_inverse: the conjugate over
 * the squared length, the identity where that is not > 0), s = p.s / r.s
 * (1 where r.s == 0). out may be p or r. */
SKK_ATTR static void SKK_FN(sla_make_additive_group)(const float *pg, const float *rg, float *out) {
    const SKK_V zero = SKK_FN(skk_splat)(0.0f), one = SKK_FN(skk_splat)(1.0f);
    for (int p = 0; p < SLA_PARTS; p++) {
        int o = p * SKK_W;
        const float *rq = rg + SKK_ROW_R + o, *pq = pg + SKK_ROW_R + o;
        SKK_V rx = SKK_FN(skk_ld)(rq), ry = SKK_FN(skk_ld)(rq + 8), rz = SKK_FN(skk_ld)(rq + 16), rw = SKK_FN(skk_ld)(rq + 24);
        SKK_V bx = SKK_FN(skk_ld)(pq), by = SKK_FN(skk_ld)(pq + 8), bz = SKK_FN(skk_ld)(pq + 16), bw = SKK_FN(skk_ld)(pq + 24);
        SKK_V dd = rx * rx + ry * ry + rz * rz + rw * rw;
        SKK_I inv_ok = dd > zero;
        SKK_V ax = SKK_FN(skk_sel)(inv_ok, -rx / dd, zero), ay = SKK_FN(skk_sel)(inv_ok, -ry / dd, zero);
        SKK_V az = SKK_FN(skk_sel)(inv_ok, -rz / dd, zero), aw = SKK_FN(skk_sel)(inv_ok, rw / dd, one);
        SKK_V x = aw * bx + ax * bw + ay * bz - az * by, y = aw * by - ax * bz + ay * bw + az * bx;
        SKK_V z = aw * bz + ax * by - ay * bx + az * bw, ww = aw * bw - ax * bx - ay * by - az * bz;
        SKK_V l = SKK_FN(skk_sqrt)(x * x + y * y + z * z + ww * ww);
        SKK_I ok = (l > zero) & (l < SKK_FN(skk_splat)(__builtin_inff()));
        SKK_V inv = one / l;
        for (unsigned r = 0; r < 3; r++) {
            SKK_V pt = SKK_FN(skk_ld)(pg + SKK_ROW_T + r * 8 + o), rt = SKK_FN(skk_ld)(rg + SKK_ROW_T + r * 8 + o);
            SKK_V ps = SKK_FN(skk_ld)(pg + SKK_ROW_S + r * 8 + o), rs = SKK_FN(skk_ld)(rg + SKK_ROW_S + r * 8 + o);
            SKK_FN(skk_st)(out + SKK_ROW_T + r * 8 + o, pt - rt);
            SKK_FN(skk_st)(out + SKK_ROW_S + r * 8 + o, SKK_FN(skk_sel)(rs != zero, ps / rs, one));
        }
        float *q = out + SKK_ROW_R + o;
        SKK_FN(skk_st)(q, SKK_FN(skk_sel)(ok, x * inv, zero));
        SKK_FN(skk_st)(q + 8, SKK_FN(skk_sel)(ok, y * inv, zero));
        SKK_FN(skk_st)(q + 16, SKK_FN(skk_sel)(ok, z * inv, zero));
        SKK_FN(skk_st)(q + 24, SKK_FN(skk_sel)(ok, ww * inv, one));
    }
}

/* sk_blend_poses's joint loop (normalised-lerp rotations) for one group, in
 * double as it accumulates: in[i] the inputs' groups, wt the weights
 * (input i, channel c = T, R, S at wt[i * 24 + c * 8 + lane]; 0 where the
 * input does not contribute), rest the rest pose's group. out may be one
 * of the inputs (each part's rows are read before they are written). */
SKK_ATTR static void SKK_FN(sla_blend_group)(const float *const *in, const float *wt, uint32_t n, bool fill,
                                             const float *rest, float *out) {
    const SKD_VD zero = SKD_FN(skd_splat)(0.0), one = SKD_FN(skd_splat)(1.0);
    for (int o = 0; o < 8; o += SKD_D) {
        /* translation and scale: blend_vec */
        SKD_VD vr[2][3];
        for (int ch = 0; ch < 2; ch++) {
            unsigned row = ch ? SKK_ROW_S : SKK_ROW_T, wrow = ch ? 16u : 0u;
            SKD_VD acc[3] = {zero, zero, zero}, W = zero;
            for (uint32_t i = 0; i < n; i++) {
                SKD_VD w = SKD_FN(skd_ld)(wt + i * 24 + wrow + o);
                SKD_VL m = w != zero;
                for (int c = 0; c < 3; c++)
                    acc[c] = SKD_FN(skd_sel)(m, acc[c] + w * SKD_FN(skd_ld)(in[i] + row + c * 8 + o), acc[c]);
                W = SKD_FN(skd_sel)(m, W + w, W);
            }
            SKD_VL none = W == zero, part = (W < one) & (fill ? ~(SKD_VL){0} : (SKD_VL){0});
            SKD_VL divide = ~none & ~part; /* the division only where a lane needs it (its latency is long) */
            bool any = false;
            for (int k = 0; k < SKD_D; k++) any |= divide[k] != 0;
            for (int c = 0; c < 3; c++) {
                SKD_VD rv = SKD_FN(skd_ld)(rest + row + c * 8 + o);
                SKD_VD q = any ? acc[c] / W : acc[c];
                vr[ch][c] = SKD_FN(skd_sel)(none, rv, SKD_FN(skd_sel)(part, acc[c] + (one - W) * rv, q));
            }
        }
        /* rotation: blend_rot_nlerp (the first contribution of a lane is not sign-aligned) */
        SKD_VD a[4] = {zero, zero, zero, zero}, W = zero;
        SKD_VL seen = (SKD_VL){0};
        for (uint32_t i = 0; i < n; i++) {
            SKD_VD w = SKD_FN(skd_ld)(wt + i * 24 + 8 + o);
            SKD_VL m = w != zero;
            SKD_VD q[4];
            for (int k = 0; k < 4; k++) q[k] = SKD_FN(skd_ld)(in[i] + SKK_ROW_R + k * 8 + o);
            SKD_VD dot = a[0] * q[0] + a[1] * q[1] + a[2] * q[2] + a[3] * q[3];
            SKD_VD s = SKD_FN(skd_sel)(~seen | (dot >= zero), w, -w);
            for (int k = 0; k < 4; k++) a[k] = SKD_FN(skd_sel)(m, a[k] + s * q[k], a[k]);
            W = SKD_FN(skd_sel)(m, W + w, W);
            seen |= m;
        }
        SKD_VD rq[4];
        for (int k = 0; k < 4; k++) rq[k] = SKD_FN(skd_ld)(rest + SKK_ROW_R + k * 8 + o);
        SKD_VL none = W == zero, part = (W < one) & (fill ? ~(SKD_VL){0} : (SKD_VL){0});
        SKD_VD dot = a[0] * rq[0] + a[1] * rq[1] + a[2] * rq[2] + a[3] * rq[3];
        SKD_VD s = SKD_FN(skd_sel)(dot >= zero, one - W, W - one);
        for (int k = 0; k < 4; k++) a[k] = SKD_FN(skd_sel)(part, a[k] + s * rq[k], a[k]);
        SKD_VD l = SKD_FN(skd_sqrt)(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        SKD_VL ok = l > zero;
        for (int k = 0; k < 4; k++) {
            SKD_VD v = SKD_FN(skd_sel)(ok, a[k] / l, k == 3 ? one : zero);
            SKD_FN(skd_st)(out + SKK_ROW_R + k * 8 + o, SKD_FN(skd_sel)(none, rq[k], v));
        }
        for (int ch = 0; ch < 2; ch++)
            for (int c = 0; c < 3; c++) SKD_FN(skd_st)(out + (ch ? SKK_ROW_S : SKK_ROW_T) + c * 8 + o, vr[ch][c]);
    }
}

#undef SLA_PARTS
#undef SKK_W
#undef SKK_V
#undef SKK_I
#undef SKK_FN
#undef SKK_ATTR
#undef SKD_D
#undef SKD_VD
#undef SKD_VL
#undef SKD_FN
