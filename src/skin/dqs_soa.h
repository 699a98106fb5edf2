/* Dual quaternion skinning, SOA_W vertices at a time in structure-of-arrays
 * form (one lane per vertex), for positions and normals without morph
 * targets. Included by skin_simd.c once per SIMD width with SOA_W (lanes),
 * SOA_FN (function name), SOA_ATTR (target attribute), SOA_SQRT (vector
 * square root), SOA_LOAD_DQ (transpose SOA_W dual quaternions into 8
 * component vectors) and SOA_LOAD_XYZ (transpose the 4-float rows of
 * SOA_W vertices, base + 3 * vv[l], into x, y, z vectors) defined. The per-vertex kernels are latency bound (each
 * vertex is a chain of dot product, sign, blend, normalise, rotate); in SoA
 * the lanes run those chains side by side.
 *
 * Same formulas as the scalar reference (skin.c, skin_internal.h): blend the
 * dual quaternions with each weight's sign flipped when its real part lies
 * in the other hemisphere from the first influence's (the antipodal fix),
 * normalise by the real part's length (a zero length gives zero, as the
 * scalar code), p' = rotate(r, p) + 2 (r.w d.v - d.w r.v + r.v x d.v),
 * n' = normalize(rotate(r, n)). Unused influence slots have weight 0. */

typedef float SOA_VF __attribute__((vector_size(SOA_W * 4)));
typedef int32_t SOA_VI __attribute__((vector_size(SOA_W * 4)));
/* (SOA_VF / SOA_VI name the types: defined by the includer to distinct names per width.) */

/* Skins group entries from e0 on, SOA_W at a time, while a whole SOA_W fit
 * before e1; returns how many it skinned (a multiple of SOA_W). */
SOA_ATTR static uint32_t SOA_FN(const sk_skin_ctx *c, const sk_skin_group *g, uint32_t e0, uint32_t e1) {
    const sk_skinned_mesh *m = c->mesh;
    const uint32_t k = g->slots; /* the 5-8 group: padding slots have weight 0 */
    const float *dq = c->dq;
    const SOA_VI signbit = (SOA_VI){0} + (int32_t)0x80000000;
    const uint32_t count = e1 - e0;
    uint32_t done = 0;
    for (; done + SOA_W <= count; done += SOA_W) {
        const uint32_t *vv = g->index + e0 + done; /* the lanes' vertices */
        SOA_VF b[8], ref[4];
        for (int e = 0; e < 8; e++) b[e] = (SOA_VF){0};
        for (int e = 0; e < 4; e++) ref[e] = (SOA_VF){0};
        for (uint32_t q = 0; q < k; q++) {
            SOA_VF D[8], w;
            const float *src[SOA_W];
            float wa[SOA_W];
            for (int l = 0; l < SOA_W; l++) {
                size_t slot = (size_t)(e0 + done + (uint32_t)l) * k + q;
                src[l] = dq + 8 * (size_t)g->joints[slot];
                wa[l] = g->weights[slot];
            }
            SOA_LOAD_DQ(D, src); /* D[e] = component e of every lane's dual quaternion */
            memcpy(&w, wa, sizeof w);
            if (q == 0)
                for (int e = 0; e < 4; e++) ref[e] = D[e];
            SOA_VF d = ref[0] * D[0] + ref[1] * D[1] + ref[2] * D[2] + ref[3] * D[3];
            SOA_VI neg = d < 0.0f;
            w = (SOA_VF)((SOA_VI)w ^ (neg & signbit));
            for (int e = 0; e < 8; e++) b[e] += w * D[e];
        }
        SOA_VF len = SOA_SQRT(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
        SOA_VI ok = len > 0.0f;
        SOA_VF inv = (SOA_VF)((SOA_VI)(1.0f / len) & ok);
        SOA_VF rx = b[0] * inv, ry = b[1] * inv, rz = b[2] * inv, rw = b[3] * inv;
        SOA_VF dx = b[4] * inv, dy = b[5] * inv, dz = b[6] * inv, dw = b[7] * inv;
        if (c->op) {
            SOA_VF px, py, pz;
            SOA_LOAD_XYZ(px, py, pz, m->pos, vv);
            SOA_VF trx = 2.0f * (rw * dx - dw * rx + ry * dz - rz * dy);
            SOA_VF try_ = 2.0f * (rw * dy - dw * ry + rz * dx - rx * dz);
            SOA_VF trz = 2.0f * (rw * dz - dw * rz + rx * dy - ry * dx);
            SOA_VF tx = ry * pz - rz * py + rw * px, ty = rz * px - rx * pz + rw * py, tz = rx * py - ry * px + rw * pz;
            SOA_VF ox = px + 2.0f * (ry * tz - rz * ty) + trx;
            SOA_VF oy = py + 2.0f * (rz * tx - rx * tz) + try_;
            SOA_VF oz = pz + 2.0f * (rx * ty - ry * tx) + trz;
            for (int l = 0; l < SOA_W; l++) {
                float *o = c->op + (size_t)(vv[l] - c->first) * c->ps;
                o[0] = ox[l], o[1] = oy[l], o[2] = oz[l];
            }
        }
        if (c->on) {
            SOA_VF nx, ny, nz;
            SOA_LOAD_XYZ(nx, ny, nz, m->nrm, vv);
            SOA_VF tx = ry * nz - rz * ny + rw * nx, ty = rz * nx - rx * nz + rw * ny, tz = rx * ny - ry * nx + rw * nz;
            SOA_VF ox = nx + 2.0f * (ry * tz - rz * ty);
            SOA_VF oy = ny + 2.0f * (rz * tx - rx * tz);
            SOA_VF oz = nz + 2.0f * (rx * ty - ry * tx);
            SOA_VF l2 = ox * ox + oy * oy + oz * oz;
            SOA_VI direct = (l2 > 1e-30f) & (l2 <= 3.0e38f);
            SOA_VF s = 1.0f / SOA_SQRT(l2);
            SOA_VF ux = ox, uy = oy, uz = oz;
            ox *= s, oy *= s, oz *= s;
            for (int l = 0; l < SOA_W; l++) {
                float *o = c->on + (size_t)(vv[l] - c->first) * c->ns;
                if (direct[l]) {
                    o[0] = ox[l], o[1] = oy[l], o[2] = oz[l];
                } else { /* zero, tiny or overflowing length: the scalar slow path */
                    o[0] = ux[l], o[1] = uy[l], o[2] = uz[l];
                    sk_skin_normalize3_slow(o);
                }
            }
        }
    }
    return done;
}
