/* glTF reader, last step: values that would overflow in world space (issue
 * #14 finding 5). Every value the reader produced is finite, but finite is
 * not enough: a translation of 3e38 gives an infinite world matrix and NaN
 * skinned vertices. This step bounds, in double, what sampling any clip at
 * any time can produce, and refuses the file when a bound passes
 * SK_GLTF_MAX_WORLD (gltf.h):
 *  - per node, the largest translation length and scale component over its
 *    rest transform and every key of its translation and scale tracks
 *    (CUBICSPLINE: value + key span * tangent, a bound of the Hermite curve;
 *    rotations are unit quaternions and change no length);
 *  - world transforms as (A, B): A bounds the spectral norm of the linear
 *    part, B the length of the translation; child = A_p * s, B_p + A_p * t;
 *  - skinning matrices: A * |inverse bind (Frobenius)| and A * |ibm t| + B;
 *  - vertices: the largest position length of each mesh, through the node's
 *    world bound, or through its skin's palette bound times the largest sum
 *    of weights. Morph target deltas are not included.
 * Runs once per load over data already in memory; allocates from the
 * scratch arena. */
#include "io/gltf_internal.h"

#include <math.h>
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
#include <emmintrin.h>
#endif

static double len3(double x, double y, double z) { return sqrt(x * x + y * y + z * z); }
/* max(a, b) by a compare instead of a libm call, NaN winning (so the limit
 * checks below still see one, as with fmax's callers' !(x <= lim)). */
static inline double dmax(double a, double b) { return (a > b || a != a) ? a : b; }

/* Largest |translation| (width 3, lengths) or |scale component| over a track's keys,
 * and (finite) whether every value is finite: the reader's Inf/NaN check of
 * the keys in the same pass (the bound is used only when they are). The
 * common cases run as plain loops: LINEAR/STEP lengths in
 * double with four running maxima, and the largest |component| as the
 * largest magnitude bit pattern (for finite floats the order of |x| is the
 * order of its bits without the sign). */
static inline uint32_t word_bad(const float *x) { /* sign bit set when *x is Inf or NaN */
    uint32_t u;
    memcpy(&u, x, 4);
    return (u & 0x7f800000u) + 0x00800000u;
}

double sk_gl_track_bound(const float *times, const float *v, uint32_t n, uint32_t w, bool cubic, bool length,
                         bool *finite) {
    double vmax = 0.0, mmax = 0.0; /* squared lengths when `length`: one square root at the end */
    uint32_t bad = 0;              /* word_bad of every value, or'ed */
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
    const __m128i expo = _mm_set1_epi32(0x7f800000), one = _mm_set1_epi32(0x00800000);
    __m128i badv = _mm_setzero_si128();
#define SK_BAD4(x) (badv = _mm_or_si128(badv, _mm_add_epi32(_mm_and_si128(_mm_castps_si128(x), expo), one)))
#endif
    if (!cubic && length && w == 3) {
        double m4[4] = {0.0, 0.0, 0.0, 0.0};
        uint32_t k = 0;
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
        /* Four keys (12 floats) at a time, split into their x, y and z, then
         * in double two keys at a time: the same products and sums in the
         * same order as below (exact squares, (x^2 + y^2) + z^2). */
        __m128d mlo = _mm_setzero_pd(), mhi = _mm_setzero_pd();
        for (; k + 4 <= n; k += 4) {
            const float *x = v + (size_t)k * 3;
            __m128 a = _mm_loadu_ps(x), b = _mm_loadu_ps(x + 4), c = _mm_loadu_ps(x + 8);
            SK_BAD4(a), SK_BAD4(b), SK_BAD4(c);
            /* a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3 */
            __m128 bc = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 1, 2, 2));            /* x2 x2 x3 x3 */
            __m128 X = _mm_shuffle_ps(a, bc, _MM_SHUFFLE(2, 0, 3, 0));            /* x0 x1 x2 x3 */
            __m128 ab = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1));            /* y0 y0 y1 y1 */
            __m128 bc2 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3));           /* y2 y2 y3 y3 */
            __m128 Y = _mm_shuffle_ps(ab, bc2, _MM_SHUFFLE(2, 0, 2, 0));          /* y0 y1 y2 y3 */
            __m128 ab2 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2));           /* z0 z0 z1 z1 */
            __m128 cc = _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 3, 0, 0));            /* z2 z2 z3 z3 */
            __m128 Z = _mm_shuffle_ps(ab2, cc, _MM_SHUFFLE(2, 0, 2, 0));          /* z0 z1 z2 z3 */
            __m128d xl = _mm_cvtps_pd(X), yl = _mm_cvtps_pd(Y), zl = _mm_cvtps_pd(Z);
            __m128d xh = _mm_cvtps_pd(_mm_movehl_ps(X, X)), yh = _mm_cvtps_pd(_mm_movehl_ps(Y, Y)),
                    zh = _mm_cvtps_pd(_mm_movehl_ps(Z, Z));
            mlo = _mm_max_pd(mlo, _mm_add_pd(_mm_add_pd(_mm_mul_pd(xl, xl), _mm_mul_pd(yl, yl)), _mm_mul_pd(zl, zl)));
            mhi = _mm_max_pd(mhi, _mm_add_pd(_mm_add_pd(_mm_mul_pd(xh, xh), _mm_mul_pd(yh, yh)), _mm_mul_pd(zh, zh)));
        }
        _mm_storeu_pd(m4, mlo);
        _mm_storeu_pd(m4 + 2, mhi);
#endif
        for (; k + 4 <= n; k += 4)
            for (uint32_t j = 0; j < 4; j++) {
                const float *x = v + (size_t)(k + j) * 3;
                double m = (double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2];
                m4[j] = dmax(m4[j], m);
                bad |= word_bad(x) | word_bad(x + 1) | word_bad(x + 2);
            }
        for (; k < n; k++) {
            const float *x = v + (size_t)k * 3;
            m4[0] = dmax(m4[0], (double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]);
            bad |= word_bad(x) | word_bad(x + 1) | word_bad(x + 2);
        }
        vmax = dmax(dmax(m4[0], m4[1]), dmax(m4[2], m4[3]));
    } else if (!cubic && !length) {
        size_t words = (size_t)n * w, i = 0;
        uint32_t top = 0;
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
        /* |x| as floats, 8 at a time: for finite floats the largest |x| is the
         * largest magnitude bit pattern, the same answer as below */
        const __m128 abs = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
        __m128 m0 = _mm_setzero_ps(), m1 = _mm_setzero_ps();
        for (; i + 8 <= words; i += 8) {
            __m128 a = _mm_loadu_ps(v + i), b = _mm_loadu_ps(v + i + 4);
            SK_BAD4(a), SK_BAD4(b);
            m0 = _mm_max_ps(m0, _mm_and_ps(a, abs));
            m1 = _mm_max_ps(m1, _mm_and_ps(b, abs));
        }
        float m[4];
        _mm_storeu_ps(m, _mm_max_ps(m0, m1));
        for (int l = 0; l < 4; l++) {
            uint32_t u;
            memcpy(&u, &m[l], 4);
            top = u > top ? u : top;
        }
#endif
        for (; i < words; i++) {
            uint32_t u;
            memcpy(&u, v + i, 4);
            bad |= word_bad(v + i);
            u &= 0x7fffffffu;
            top = u > top ? u : top;
        }
        float f;
        memcpy(&f, &top, 4);
        vmax = (double)f;
    } else {
        for (size_t i = 0, words = (size_t)n * w * (cubic ? 3u : 1u); finite && i < words; i++) bad |= word_bad(v + i);
        for (uint32_t k = 0; k < n; k++) {
            for (uint32_t part = 0; part < (cubic ? 3u : 1u); part++) {
                const float *x = v + ((size_t)k * (cubic ? 3u : 1u) + part) * w;
                double m = 0.0;
                if (length) m = (double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2];
                else
                    for (uint32_t c = 0; c < w; c++) m = dmax(m, fabs((double)x[c]));
                if (cubic && part != 1) mmax = dmax(mmax, m);
                else vmax = dmax(vmax, m);
            }
        }
    }
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
    {
        uint32_t b4[4];
        _mm_storeu_si128((__m128i *)(void *)b4, badv);
        bad |= b4[0] | b4[1] | b4[2] | b4[3];
    }
#undef SK_BAD4
#endif
    if (finite) *finite = (bad & 0x80000000u) == 0;
    if (length) vmax = sqrt(vmax), mmax = sqrt(mmax);
    double span = n ? (double)times[n - 1] - (double)times[0] : 0.0;
    return vmax + span * mmax;
}

sk_result sk_gl_check_world_range(gl_ctx *g) {
    const sk_asset *a = g->asset;
    const sk_skeleton *s = a->skeleton;
    const double lim = SK_GLTF_MAX_WORLD;
    uint32_t J = s ? s->joint_count : 0;
    double *tb = sk_arena_alloc(&g->tmp, ((size_t)J + 1) * 4 * sizeof(double));
    if (!tb) return oom(g);
    double *sb = tb + J, *A = sb + J, *B = A + J;
    for (uint32_t j = 0; j < J; j++) {
        const sk_transform *r = &s->rest[j];
        tb[j] = len3(r->t.x, r->t.y, r->t.z);
        sb[j] = fmax(fabs((double)r->s.x), fmax(fabs((double)r->s.y), fabs((double)r->s.z)));
    }
    /* animated translations and scales: bounded while the reader had each
     * channel's keys in hand (gltf_animation.c; reading them back from a
     * frame-major clip would walk the whole clip once per track) */
    for (uint32_t j = 0; j < J && g->anim_tb; j++) {
        tb[j] = fmax(tb[j], g->anim_tb[j]);
        sb[j] = fmax(sb[j], g->anim_sb[j]);
    }
    /* world bounds, parents first */
    for (uint32_t j = 0; j < J; j++) {
        int32_t p = s->parents[j];
        double ap = p >= 0 ? A[p] : 1.0, bp = p >= 0 ? B[p] : 0.0;
        A[j] = ap * sb[j];
        B[j] = bp + ap * tb[j];
        if (!(A[j] <= lim) || !(B[j] <= lim)) {
            uint32_t node = a->joint_to_node ? a->joint_to_node[j] : j;
            return fail(g, SK_ERR_INVALID_DATA,
                        "/nodes/%u: its world transform can reach a translation of %.3g and a scale of %.3g "
                        "(its and its ancestors' translations and scales, rest and animated): beyond the limit "
                        "of %g (SK_GLTF_MAX_WORLD)",
                        node, B[j], A[j], lim);
        }
    }
    /* vertices: per mesh, the largest position length and sum of weights */
    double *vm = sk_arena_alloc(&g->tmp, ((size_t)a->mesh_count + 1) * 2 * sizeof(double));
    if (!vm) return oom(g);
    double *wm = vm + a->mesh_count;
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        const sk_mesh *me = &a->meshes[m];
        for (uint32_t pi = 0; pi < me->primitive_count; pi++) {
            const sk_primitive *pr = &me->primitives[pi];
            double v2 = vm[m] * vm[m];
            for (uint32_t v = 0; pr->positions && v < pr->vertex_count; v++) {
                const float *x = pr->positions + (size_t)v * 3;
                v2 = dmax(v2, (double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]);
                double ws = 0.0;
                for (uint32_t k = 0; pr->weights && k < pr->influence_count; k++)
                    ws += fabs((double)pr->weights[(size_t)v * pr->influence_count + k]);
                wm[m] = dmax(wm[m], ws);
            }
            vm[m] = sqrt(v2);
        }
        if (!(vm[m] <= lim))
            return fail(g, SK_ERR_INVALID_DATA, "/meshes/%u: a vertex position of length %.3g is beyond the limit of %g "
                        "(SK_GLTF_MAX_WORLD)", m, vm[m], lim);
    }
    /* skinning matrices, and the vertices through them or through their node */
    for (uint32_t j = 0; j < J; j++) {
        int32_t m = a->joint_mesh ? a->joint_mesh[j] : -1;
        int32_t k = a->joint_skin ? a->joint_skin[j] : -1;
        if (m < 0 || (uint32_t)m >= a->mesh_count) continue;
        double bound = A[j] * vm[m] + B[j];
        if (k >= 0 && (uint32_t)k < a->skin_count) {
            const sk_skin *sk = &a->skins[k];
            double pl = 0.0, pt = 0.0;
            for (uint32_t i = 0; i < sk->joint_count; i++) {
                uint32_t jj = sk->joints[i];
                if (jj >= J) continue;
                const float *q = sk->inverse_bind[i].m;
                double fl = 0.0;
                for (int c = 0; c < 3; c++)
                    for (int r = 0; r < 3; r++) fl += (double)q[c * 4 + r] * q[c * 4 + r];
                pl = fmax(pl, A[jj] * sqrt(fl));
                pt = fmax(pt, A[jj] * len3(q[12], q[13], q[14]) + B[jj]);
            }
            bound = fmax(1.0, wm[m]) * (pl * vm[m] + pt);
        }
        if (!(bound <= lim)) {
            uint32_t node = a->joint_to_node ? a->joint_to_node[j] : j;
            return fail(g, SK_ERR_INVALID_DATA,
                        "/nodes/%u: mesh %d %s can reach %.3g in world space: beyond the limit of %g (SK_GLTF_MAX_WORLD)",
                        node, m, k >= 0 ? "skinned with its skin" : "placed by the node", bound, lim);
        }
    }
    return SK_OK;
}
