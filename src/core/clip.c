/* Clips (core/clip.h): the clip's accessors and sampling per glTF 2.0
 * Appendix C ("Animation Sampler Interpolation Modes"). The builder is
 * clip_build.c (its frame-major writer clip_build_frames.c), the compressed
 * kind clip_compressed*.c. The layout (clip_internal.h) is private. */
#include "core/math_inline.h"
#include "core/clip_internal.h"
#include "core/soa_kernels.h"

#include <math.h>
#include <stdlib.h>

void sk_clip_destroy(sk_clip *c) {
    if (!c) return;
    sk_allocator a = c->alloc;
    if (c->name) sk_free(&a, c->name, strlen(c->name) + 1);
    if (c->kind == SK_CLIP_COMPRESSED) sk_cclip_release(c);
    if (c->frames) sk_clip_frames_free(&a, c->frames);
    sk_free(&a, c->tracks, c->track_count * sizeof(sk_track));
    sk_free(&a, c->times, c->time_total * sizeof(float));
    sk_free(&a, c->values, c->value_total * sizeof(float));
    sk_free(&a, c, sizeof *c);
}

bool sk_clip_is_frame_major(const sk_clip *c) { return c && c->frames; }

size_t sk_clip_memory_size(const sk_clip *c) {
    if (!c) return 0;
    size_t n = sizeof *c + (c->name ? strlen(c->name) + 1 : 0) + (size_t)c->track_count * sizeof(sk_track) +
               c->time_total * sizeof(float) + c->value_total * sizeof(float);
    if (c->frames)
        n += sizeof *c->frames + c->frames->data_bytes +
             (size_t)c->frames->tracks * (sizeof(sk_frame_block) + sizeof(uint32_t));
    if (c->kind == SK_CLIP_COMPRESSED) n += (c->blob_owned ? c->blob_size : 0) + c->cc.plan_words * sizeof(uint32_t);
    return n;
}
const char *sk_clip_name(const sk_clip *c) { return c && c->name ? c->name : ""; }
double sk_clip_duration(const sk_clip *c) { return c ? (double)c->duration : 0.0; }
uint32_t sk_clip_track_count(const sk_clip *c) { return c ? c->track_count : 0; }
uint32_t sk_clip_joint_span(const sk_clip *c) { return c ? c->joint_span : 0; }

bool sk_clip_track_info(const sk_clip *c, uint32_t i, sk_track_info *info) {
    if (!c || i >= c->track_count || !info) return false;
    const sk_track *t = &c->tracks[i];
    info->joint = t->joint;
    info->path = (sk_track_path)t->path;
    info->interpolation = (sk_interpolation)t->interp;
    info->key_count = t->key_count;
    info->width = t->width;
    if (c->kind == SK_CLIP_COMPRESSED && t->interp == SK_INTERP_STEP) { /* a step track's keys (blob version 5) */
        info->time_min = (double)sk_cc_f32(c->blob + t->time_offset);
        info->time_max = (double)sk_cc_f32(c->blob + t->time_offset + 4u * (t->key_count - 1u));
        return true;
    }
    if (c->kind == SK_CLIP_COMPRESSED) {
        info->time_min = 0.0;
        info->time_max = t->key_count > 1 ? (double)c->duration : 0.0;
        return true;
    }
    info->time_min = (double)c->times[t->time_offset];
    info->time_max = (double)c->times[t->time_offset + t->key_count - 1];
    return true;
}

bool sk_clip_track_keys(const sk_clip *c, uint32_t i, float *times, float *values) {
    if (!c || i >= c->track_count) return false;
    if (c->kind == SK_CLIP_COMPRESSED) return sk_cclip_track_keys(c, i, times, values);
    const sk_track *t = &c->tracks[i];
    if (times) memcpy(times, c->times + t->time_offset, t->key_count * sizeof(float));
    if (values && c->frames) { /* gathered from the frame-major blocks */
        const sk_clip_frames *f = c->frames;
        const sk_frame_block *b = &f->blocks[f->track_block[i]];
        for (uint32_t k = 0; k < f->keys; k++)
            for (uint32_t r = 0; r < b->comps; r++)
                values[(size_t)k * b->comps + r] = f->data[(size_t)k * f->stride + sk_frame_index(b, t->joint % 8u, r)];
    } else if (values) {
        size_t n = (size_t)t->key_count * t->width * (t->interp == SK_INTERP_CUBICSPLINE ? 3u : 1u);
        memcpy(values, c->values + t->value_offset, n * sizeof(float));
    }
    return true;
}

/* ---- sampling ------------------------------------------------------------ */

double sk_clip_wrap_time(const sk_clip *c, double t, sk_loop_mode loop) {
    if (t != t) return 0.0;
    double d = c ? (double)c->duration : 0.0;
    if (!(d > 0.0)) return 0.0;
    if (loop == SK_LOOP_CLAMP) return t < 0.0 ? 0.0 : (t > d ? d : t);
    if (!isfinite(t)) return 0.0;
    if (loop == SK_LOOP_PING_PONG) {
        double p = 2.0 * d, w = t - p * floor(t / p);
        if (w >= p || w < 0.0) w = 0.0;
        return w > d ? p - w : w;
    }
    /* Same wrap as glTF players (and three.js): t - d*floor(t/d), so t == d plays 0.
     * Inside the clip that is t itself, without the division: for 0 < t < d
     * (so t <= d - ulp(d)) t / d rounds to at most 1 - 2^-53, its floor is 0
     * and the formula gives t exactly. In the second period, d <= t < 2d,
     * t / d is at least 1 and rounds to at most 2 - 2^-52: the floor is 1 and
     * the formula gives t - d, exact (Sterbenz) and below d. */
    if (t > 0.0 && t < d) return t;
    if (t >= d && t < 2.0 * d) return t - d;
    double w = t - d * floor(t / d);
    if (w >= d || w < 0.0) w = 0.0;
    return w;
}

/* Largest k with times[k] <= t, or -1 when t is before the first key. */
static int64_t find_key(const float *times, uint32_t n, double t, uint32_t *cursor) {
    if (t < (double)times[0]) {
        if (cursor) *cursor = 0;
        return -1;
    }
    uint32_t k;
    if (cursor && *cursor < n) {
        k = *cursor;
        if ((double)times[k] <= t) {
            /* step forward a few keys, then fall back to a search */
            uint32_t steps = 0;
            while (k + 1 < n && (double)times[k + 1] <= t && steps < 8) { k++; steps++; }
            if (k + 1 >= n || (double)times[k + 1] > t) { *cursor = k; return k; }
        } else if (k > 0 && (double)times[k - 1] <= t) {
            *cursor = k - 1;
            return k - 1;
        }
    }
    uint32_t lo = 0, hi = n; /* invariant: times[lo] <= t, answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((double)times[mid] <= t) lo = mid; else hi = mid;
    }
    k = lo;
    if (cursor) *cursor = k;
    return k;
}

/* Frame-major sampling (sk_clip_frames): the two keys around t once for the
 * clip, then each block's eight joints at a time; written into an AoS pose
 * (aos) or the rows of an SoA pose (soa: sk_soa_pose data). Keys are the
 * same as sample_track's: before the first key the first, at or after the
 * last the last, as stored; between them translation and scale
 * a + (b - a) u and rotations sk_quat_slerp (bit for bit). */
void sk_frames_sample(const sk_clip *c, double t, uint32_t *cursor, sk_transform *aos, float *soa, bool wide) {
#if !defined(SK_SOA_X86)
    (void)wide; /* one width without the AVX2 kernels */
#endif
    const sk_clip_frames *f = c->frames;
    int64_t k = find_key(c->times, f->keys, t, cursor);
    bool edge = k < 0 || (uint32_t)k + 1 >= f->keys;
    uint32_t k0 = edge ? (k < 0 ? 0 : f->keys - 1) : (uint32_t)k;
    const float *A = f->data + (size_t)k0 * f->stride, *B = edge ? A : A + f->stride;
    float u = 0.0f;
    if (!edge) {
        double t0 = c->times[k0], td = (double)c->times[k0 + 1] - t0;
        u = (float)((t - t0) / td);
    }
    float tmp[32] __attribute__((aligned(32))), kt[8], kd[8];
    if (!edge) skk_slerp_coefs(u, kt, kd); /* once for every block's rotations */
    for (uint32_t bi = 0; bi < f->block_count; bi++) {
        const sk_frame_block *b = &f->blocks[bi];
        const float *ka = A + b->offset, *kb = B + b->offset, *res = ka;
        if (b->compact) { /* one or two tracks, one by one: the same operations as a lane */
            unsigned idx = 0;
            for (unsigned m = b->mask; m; m &= m - 1, idx++) {
                unsigned l = (unsigned)__builtin_ctz(m);
                const float *va = ka + idx * b->comps, *vb = kb + idx * b->comps;
                float v[4] = {va[0], va[1], va[2], b->comps == 4 ? va[3] : 0.0f};
                if (!edge && b->path == SK_PATH_ROTATION) {
                    sk_quat q = sk_quat_slerp(sk_quat_make(va[0], va[1], va[2], va[3]), sk_quat_make(vb[0], vb[1], vb[2], vb[3]), u);
                    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
                } else if (!edge) {
                    for (int r = 0; r < 3; r++) v[r] = va[r] + (vb[r] - va[r]) * u;
                }
                if (soa) {
                    float *o = soa + (size_t)b->group * 80u +
                               (b->path == SK_PATH_TRANSLATION ? SKK_ROW_T : b->path == SK_PATH_ROTATION ? SKK_ROW_R : SKK_ROW_S);
                    for (unsigned r = 0; r < b->comps; r++) o[r * 8 + l] = v[r];
                    continue;
                }
                sk_transform *x = &aos[(size_t)b->group * 8u + l];
                if (b->path == SK_PATH_ROTATION) x->r = sk_quat_make(v[0], v[1], v[2], v[3]);
                else if (b->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(v[0], v[1], v[2]);
                else x->s = sk_vec3_make(v[0], v[1], v[2]);
            }
            continue;
        }
        /* an SoA pose's rows of a block with all eight lanes take the result directly */
        float *o = soa ? soa + (size_t)b->group * 80u +
                             (b->path == SK_PATH_TRANSLATION ? SKK_ROW_T : b->path == SK_PATH_ROTATION ? SKK_ROW_R : SKK_ROW_S)
                       : NULL;
        float *dst = o && b->mask == 0xffu ? o : tmp;
        if (!edge && b->path == SK_PATH_ROTATION) {
            unsigned far;
#if defined(SK_SOA_X86)
            far = wide ? skk_slerp_rows_k_w8(ka, kb, u, kt, kd, dst) : skk_slerp_rows_k_w4(ka, kb, u, kt, kd, dst);
#else
            (void)wide; /* one width without the x86 kernels */
            far = skk_slerp_rows_k_w4(ka, kb, u, kt, kd, dst);
#endif
            for (far &= b->mask; far; far &= far - 1) {
                unsigned l = (unsigned)__builtin_ctz(far);
                sk_quat q = sk_quat_slerp(sk_quat_make(ka[l], ka[8 + l], ka[16 + l], ka[24 + l]),
                                          sk_quat_make(kb[l], kb[8 + l], kb[16 + l], kb[24 + l]), u);
                dst[l] = q.x, dst[8 + l] = q.y, dst[16 + l] = q.z, dst[24 + l] = q.w;
            }
            if (dst == o) continue;
            res = tmp;
        } else if (!edge) {
#if defined(SK_SOA_X86)
            if (wide) skk_lerp_rows_w8(ka, kb, u, 3, dst);
            else
#endif
                skk_lerp_rows_w4(ka, kb, u, 3, dst);
            if (dst == o) continue;
            res = tmp;
        }
        if (soa) {
#if defined(SK_SOA_X86)
            if (wide) skk_store_rows_w8(res, b->comps, b->mask, o);
            else
#endif
                skk_store_rows_w4(res, b->comps, b->mask, o);
            continue;
        }
        for (unsigned m = b->mask; m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctz(m);
            sk_transform *x = &aos[(size_t)b->group * 8u + l];
            if (b->path == SK_PATH_ROTATION) x->r = sk_quat_make(res[l], res[8 + l], res[16 + l], res[24 + l]);
            else if (b->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(res[l], res[8 + l], res[16 + l]);
            else x->s = sk_vec3_make(res[l], res[8 + l], res[16 + l]);
        }
    }
}

static void write_value(sk_track_path path, const float *v, uint32_t width, sk_transform *x, float *w) {
    switch (path) {
    case SK_PATH_TRANSLATION: x->t = sk_vec3_make(v[0], v[1], v[2]); break;
    case SK_PATH_ROTATION: x->r = sk_quat_make(v[0], v[1], v[2], v[3]); break;
    case SK_PATH_SCALE: x->s = sk_vec3_make(v[0], v[1], v[2]); break;
    case SK_PATH_WEIGHTS: memcpy(w, v, width * sizeof(float)); break;
    }
}

static void sample_track(const sk_clip *c, const sk_track *tr, double t, uint32_t *cursor, sk_transform *x,
                         float *weights) {
    const float *times = c->times + tr->time_offset;
    const float *vals = c->values + tr->value_offset;
    uint32_t n = tr->key_count, w = tr->width;
    bool cubic = tr->interp == SK_INTERP_CUBICSPLINE;
    uint32_t stride = cubic ? 3 * w : w, mid = cubic ? w : 0; /* value element within a cubic key */
    int64_t k = find_key(times, n, t, cursor);
    /* Before the first key: the first key's value; at or after the last: the last's. */
    if (k < 0 || (uint32_t)k + 1 >= n) {
        uint32_t key = k < 0 ? 0 : n - 1;
        const float *kv = vals + (size_t)key * stride + mid;
        if (cubic && tr->path == SK_PATH_ROTATION) {
            /* CUBICSPLINE rotation values are stored as given (their tangents
             * go with them): normalised here as between keys, so a clip built
             * from non-unit values (a .skc, code) never hands out a
             * non-unit rotation (found by fuzz_skc: a key of length 3e13). */
            x->r = sk_quat_normalize(sk_quat_make(kv[0], kv[1], kv[2], kv[3]));
            return;
        }
        write_value((sk_track_path)tr->path, kv, w, x, weights);
        return;
    }
    uint32_t k0 = (uint32_t)k, k1 = k0 + 1;
    double t0 = times[k0], t1 = times[k1];
    double td = t1 - t0; /* > 0: times[k1] > t >= times[k0] */
    double u = (t - t0) / td;
    if (tr->interp == SK_INTERP_STEP) {
        write_value((sk_track_path)tr->path, vals + (size_t)k0 * w, w, x, weights);
        return;
    }
    float out[4];
    float *o = tr->path == SK_PATH_WEIGHTS ? weights : out;
    if (!cubic) {
        const float *a = vals + (size_t)k0 * w, *b = vals + (size_t)k1 * w;
        if (tr->path == SK_PATH_ROTATION) {
            /* glTF 2.0 Appendix C: LINEAR rotation is slerp (shortest arc). */
            x->r = sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), (float)u);
            return;
        }
        for (uint32_t i = 0; i < w; i++) o[i] = (float)((double)a[i] + ((double)b[i] - (double)a[i]) * u);
    } else {
        /* glTF 2.0 Appendix C, cubic Hermite spline:
         *   p(u) = (2u^3-3u^2+1) v_k + td (u^3-2u^2+u) b_k + (-2u^3+3u^2) v_k+1 + td (u^3-u^2) a_k+1
         * with b_k the out-tangent of key k and a_k+1 the in-tangent of key k+1. */
        const float *v0 = vals + (size_t)k0 * stride + w, *b0 = vals + (size_t)k0 * stride + 2 * w;
        const float *a1 = vals + (size_t)k1 * stride, *v1 = vals + (size_t)k1 * stride + w;
        double u2 = u * u, u3 = u2 * u;
        double h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * td, h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * td;
        for (uint32_t i = 0; i < w; i++)
            o[i] = (float)(h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i]);
        if (tr->path == SK_PATH_ROTATION) {
            x->r = sk_quat_normalize(sk_quat_make(o[0], o[1], o[2], o[3])); /* normalised after, per spec */
            return;
        }
    }
    if (tr->path == SK_PATH_TRANSLATION) x->t = sk_vec3_make(o[0], o[1], o[2]);
    else if (tr->path == SK_PATH_SCALE) x->s = sk_vec3_make(o[0], o[1], o[2]);
}

static sk_result check_layout(const sk_clip *c, const sk_skeleton *s) {
    if (!c || !s) return SK_ERR_INVALID_ARGUMENT;
    if (c->joint_span > s->joint_count) return SK_ERR_INVALID_ARGUMENT;
    if (!c->weight_tracks) return SK_OK;
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *t = &c->tracks[i];
        if (t->path == SK_PATH_WEIGHTS && t->width != s->weight_count[t->joint]) return SK_ERR_INVALID_ARGUMENT;
    }
    return SK_OK;
}

/* LINEAR rotation tracks are interpolated in batches of four with SSE2 (eight
 * with AVX2 when the CPU has it), in
 * structure-of-arrays form: the same series and operation order as
 * sk_quat_slerp (core/math.c; the constants are core/math_inline.h's), so
 * the results are bit-identical to it
 * (tests/test_core.c checks); lanes whose keys are more than 120 degrees
 * apart take sk_quat_slerp's trigonometric branch. One call of the scalar
 * slerp per track cost about half of a crowd's animation time. */
typedef struct slerp_batch {
    const float *a[8], *b[8];
    float u[8];
    sk_quat *out[8];
    int n;
    int cap;      /* 8 with AVX2 (eight lanes), else 4 */
} slerp_batch;

#if defined(SKM_C4_SSE)

/* Entries from..from+used-1 of the batch (used <= 4). */
static void slerp_flush4(slerp_batch *sbatch, int from, int used) {
    slerp_batch local = *sbatch, *sb = &local;
    for (int i = 0; i < used; i++) /* lanes 0..used-1 = entries from.. */
        sb->a[i] = sbatch->a[from + i], sb->b[i] = sbatch->b[from + i], sb->u[i] = sbatch->u[from + i],
        sb->out[i] = sbatch->out[from + i];
    sk_quat spare[4];
    for (int i = used; i < 4; i++) { /* a partial batch: idle lanes repeat lane 0 into spare outputs */
        sb->a[i] = sb->a[0], sb->b[i] = sb->b[0], sb->u[i] = sb->u[0];
        sb->out[i] = &spare[i];
    }
    __m128 A[4], B[4];
    skm_soa4_load(sb->a, A);
    skm_soa4_load(sb->b, B);
    __m128 ax = A[0], ay = A[1], az = A[2], aw = A[3], bx = B[0], by = B[1], bz = B[2], bw = B[3];
    const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
    __m128 t = _mm_loadu_ps(sb->u);
    /* x = a.b in sk_quat_slerp's order: ((ax bx + ay by) + az bz) + aw bw */
    __m128 x = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(ax, bx), _mm_mul_ps(ay, by)), _mm_mul_ps(az, bz)),
                          _mm_mul_ps(aw, bw));
    int far = _mm_movemask_ps(_mm_cmpunord_ps(x, x));
    __m128 neg = _mm_cmplt_ps(x, zero);
    __m128 sgn = _mm_or_ps(_mm_and_ps(neg, _mm_set1_ps(-1.0f)), _mm_andnot_ps(neg, one));
    x = _mm_min_ps(_mm_mul_ps(x, sgn), one);
    far |= _mm_movemask_ps(_mm_cmplt_ps(x, _mm_set1_ps(SKM_SLERP_TRIG_BELOW)));
    __m128 xm1 = _mm_sub_ps(x, one), d = _mm_sub_ps(one, t), t2 = _mm_mul_ps(t, t), d2 = _mm_mul_ps(d, d);
    /* Terms per lane as in the scalar code: 3 above xm1 = -0.01, 6 above -0.1, else 8 (with mu). */
    __m128 m3 = _mm_cmpgt_ps(xm1, _mm_set1_ps(SKM_SLERP_3_TERMS_ABOVE));
    __m128 m5 = _mm_cmpgt_ps(xm1, _mm_set1_ps(SKM_SLERP_6_TERMS_ABOVE));
    /* Term i is used by every lane for i <= 2, by 6- and 8-term lanes for
     * i <= 5, by 8-term lanes for i >= 6; a lane that skips it keeps ct = cd = 1 exactly. */
    const __m128 all = _mm_cmpeq_ps(one, one), use35 = _mm_andnot_ps(m3, all), use67 = _mm_andnot_ps(m5, all);
    __m128 ct = one, cd = one;
    /* Terms no lane uses are skipped (keys close together: usually 3 terms). */
    int start = _mm_movemask_ps(m3) == 15 ? 2 : _mm_movemask_ps(m5) == 15 ? 5 : 7;
    for (int i = start; i >= 0; i--) {
        __m128 use = i >= 6 ? use67 : i >= 3 ? use35 : all;
        __m128 ui = _mm_set1_ps(skm_slerp_u[i]), vi = _mm_set1_ps(skm_slerp_v[i]);
        __m128 nct = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(ui, t2), vi), xm1), ct));
        __m128 ncd = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(ui, d2), vi), xm1), cd));
        ct = _mm_or_ps(_mm_and_ps(use, nct), _mm_andnot_ps(use, ct));
        cd = _mm_or_ps(_mm_and_ps(use, ncd), _mm_andnot_ps(use, cd));
    }
    ct = _mm_mul_ps(ct, _mm_mul_ps(t, sgn));
    cd = _mm_mul_ps(cd, d);
    __m128 qx = _mm_add_ps(_mm_mul_ps(cd, ax), _mm_mul_ps(ct, bx));
    __m128 qy = _mm_add_ps(_mm_mul_ps(cd, ay), _mm_mul_ps(ct, by));
    __m128 qz = _mm_add_ps(_mm_mul_ps(cd, az), _mm_mul_ps(ct, bz));
    __m128 qw = _mm_add_ps(_mm_mul_ps(cd, aw), _mm_mul_ps(ct, bw));
    __m128 l2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(qx, qx), _mm_mul_ps(qy, qy)), _mm_mul_ps(qz, qz)),
                           _mm_mul_ps(qw, qw));
    far |= _mm_movemask_ps(_mm_cmpngt_ps(l2, zero)); /* zero length: the scalar code's identity */
    __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(l2));
    qx = _mm_mul_ps(qx, inv), qy = _mm_mul_ps(qy, inv), qz = _mm_mul_ps(qz, inv), qw = _mm_mul_ps(qw, inv);
    _MM_TRANSPOSE4_PS(qx, qy, qz, qw);
    __m128 q[4] = {qx, qy, qz, qw};
    for (int i = 0; i < used; i++) {
        if (far & (1 << i)) {
            const float *a = sb->a[i], *b = sb->b[i];
            *sb->out[i] = sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), sb->u[i]);
        } else {
            _mm_storeu_ps(&sb->out[i]->x, q[i]);
        }
    }
}

#if defined(SKM_SOA8)
#define SK_SLERP_AVX2 1
/* The same, eight lanes (AVX2 without FMA: identical operations). */
__attribute__((target("avx2"))) static void slerp_flush8(slerp_batch *sbatch) {
    slerp_batch local = *sbatch, *sb = &local;
    int used = sb->n;
    sk_quat spare[8];
    for (int i = used; i < 8; i++) {
        sb->a[i] = sb->a[0], sb->b[i] = sb->b[0], sb->u[i] = sb->u[0];
        sb->out[i] = &spare[i];
    }
    __m256 A[4], B[4];
    skm_soa8_load(sb->a, A);
    skm_soa8_load(sb->b, B);
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps(), all = _mm256_cmp_ps(one, one, _CMP_EQ_OQ);
    __m256 t = _mm256_loadu_ps(sb->u);
    __m256 x = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(A[0], B[0]), _mm256_mul_ps(A[1], B[1])),
                                           _mm256_mul_ps(A[2], B[2])),
                             _mm256_mul_ps(A[3], B[3]));
    int far = _mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    __m256 neg = _mm256_cmp_ps(x, zero, _CMP_LT_OQ);
    __m256 sgn = _mm256_or_ps(_mm256_and_ps(neg, _mm256_set1_ps(-1.0f)), _mm256_andnot_ps(neg, one));
    x = _mm256_min_ps(_mm256_mul_ps(x, sgn), one);
    far |= _mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(SKM_SLERP_TRIG_BELOW), _CMP_LT_OQ));
    __m256 xm1 = _mm256_sub_ps(x, one), d = _mm256_sub_ps(one, t), t2 = _mm256_mul_ps(t, t), d2 = _mm256_mul_ps(d, d);
    __m256 m3 = _mm256_cmp_ps(xm1, _mm256_set1_ps(SKM_SLERP_3_TERMS_ABOVE), _CMP_GT_OQ);
    __m256 m5 = _mm256_cmp_ps(xm1, _mm256_set1_ps(SKM_SLERP_6_TERMS_ABOVE), _CMP_GT_OQ);
    const __m256 use35 = _mm256_andnot_ps(m3, all), use67 = _mm256_andnot_ps(m5, all);
    __m256 ct = one, cd = one;
    int start = _mm256_movemask_ps(m3) == 255 ? 2 : _mm256_movemask_ps(m5) == 255 ? 5 : 7;
    for (int i = start; i >= 0; i--) {
        __m256 use = i >= 6 ? use67 : i >= 3 ? use35 : all;
        __m256 ui = _mm256_set1_ps(skm_slerp_u[i]), vi = _mm256_set1_ps(skm_slerp_v[i]);
        __m256 nct = _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(ui, t2), vi), xm1), ct));
        __m256 ncd = _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(ui, d2), vi), xm1), cd));
        ct = _mm256_blendv_ps(ct, nct, use);
        cd = _mm256_blendv_ps(cd, ncd, use);
    }
    ct = _mm256_mul_ps(ct, _mm256_mul_ps(t, sgn));
    cd = _mm256_mul_ps(cd, d);
    __m256 q[4];
    for (int e = 0; e < 4; e++) q[e] = _mm256_add_ps(_mm256_mul_ps(cd, A[e]), _mm256_mul_ps(ct, B[e]));
    __m256 l2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(q[0], q[0]), _mm256_mul_ps(q[1], q[1])),
                                            _mm256_mul_ps(q[2], q[2])),
                              _mm256_mul_ps(q[3], q[3]));
    far |= _mm256_movemask_ps(_mm256_cmp_ps(l2, zero, _CMP_NGT_UQ));
    __m256 inv = _mm256_div_ps(one, _mm256_sqrt_ps(l2));
    for (int e = 0; e < 4; e++) q[e] = _mm256_mul_ps(q[e], inv);
    __m128 rs[8];
    skm_soa8_store(q, rs);
    for (int lane = 0; lane < used; lane++) {
        if (far & (1 << lane)) {
            const float *a = sb->a[lane], *b = sb->b[lane];
            *sb->out[lane] =
                sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), sb->u[lane]);
        } else {
            _mm_storeu_ps(&sb->out[lane]->x, rs[lane]);
        }
    }
}
#endif

static void slerp_flush(slerp_batch *sb) {
    if (sb->n == 0) return;
#ifdef SK_SLERP_AVX2
    if (sb->cap == 8 && sb->n > 4) {
        slerp_flush8(sb);
        sb->n = 0;
        return;
    }
#endif
    slerp_flush4(sb, 0, sb->n < 4 ? sb->n : 4);
    if (sb->n > 4) slerp_flush4(sb, 4, sb->n - 4);
    sb->n = 0;
}
#else
static void slerp_flush(slerp_batch *sb) {
    for (int i = 0; i < sb->n; i++) {
        const float *a = sb->a[i], *b = sb->b[i];
        *sb->out[i] = sk_quat_slerp(sk_quat_make(a[0], a[1], a[2], a[3]), sk_quat_make(b[0], b[1], b[2], b[3]), sb->u[i]);
    }
    sb->n = 0;
}
#endif

/* A LINEAR rotation track between two keys goes into the batch (flushed when
 * full); everything else is sampled at once. A batched u is the fraction
 * between the two keys, in [0, 1], where the flushes' series holds. */
static void sample_track_batched(const sk_clip *c, const sk_track *tr, double t, uint32_t *cursor, sk_transform *local,
                                 float *weights, slerp_batch *sb) {
    if (tr->path != SK_PATH_ROTATION || tr->interp != SK_INTERP_LINEAR) {
        sample_track(c, tr, t, cursor, &local[tr->joint], weights);
        return;
    }
    const float *times = c->times + tr->time_offset;
    uint32_t n = tr->key_count;
    int64_t k = find_key(times, n, t, cursor);
    if (k < 0 || (uint32_t)k + 1 >= n) {
        sample_track(c, tr, t, cursor, &local[tr->joint], weights); /* before the first / after the last key */
        return;
    }
    uint32_t k0 = (uint32_t)k;
    double t0 = times[k0], td = (double)times[k0 + 1] - t0;
    const float *vals = c->values + tr->value_offset;
    int i = sb->n++;
    sb->a[i] = vals + (size_t)k0 * 4;
    sb->b[i] = vals + (size_t)(k0 + 1) * 4;
    sb->u[i] = (float)((t - t0) / td);
    sb->out[i] = &local[tr->joint].r;
    if (sb->n == sb->cap) slerp_flush(sb);
}

/* Track i (not a morph-weight track) of a per-track-keys clip at wrapped time
 * t into x (the SoA fallback, soa.c). */
void sk_clip_track_sample(const sk_clip *c, uint32_t i, double t, uint32_t *cursor, sk_transform *x) {
    sample_track(c, &c->tracks[i], t, cursor, x, NULL);
}

sk_result sk_clip_args_check(const sk_clip *c, const sk_skeleton *s, const uint32_t *cursor, size_t cursor_count,
                             bool weights, const char *who, sk_error *err) {
    if (!weights && s && sk_clip_args_fit(c, s, cursor, cursor_count)) return SK_OK; /* the one definition; the rest names what is wrong */
    if (!c) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL clip", who);
    if (cursor && cursor_count < sk_clip_cursor_size(c))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: cursor holds %zu entries, clip '%s' needs %zu", who,
                            cursor_count, sk_clip_name(c), sk_clip_cursor_size(c));
    if (weights ? check_layout(c, s) != SK_OK : c->joint_span > s->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: clip '%s' targets %s the skeleton does not have", who,
                            sk_clip_name(c), weights ? "joints or morph weights" : "joints");
    return SK_OK;
}

static sk_result sample_args(const sk_clip *c, const sk_skeleton *s, const uint32_t *cursor, size_t cursor_count,
                             const sk_pose *p, const char *who, sk_error *err) {
    sk_result r = sk_pose_check(s, p, who, err);
    return r != SK_OK ? r : sk_clip_args_check(c, s, cursor, cursor_count, true, who, err);
}

static void sample_tracks(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                          size_t cursor_count, sk_transform *io_local, float *io_weights) {
    double tw = sk_clip_wrap_time(c, t, loop);
    if (c->kind == SK_CLIP_COMPRESSED) {
        (void)s, (void)io_weights; /* no morph weights, no key search */
        sk_cclip_sample_tracks(c, tw, sk_cclip_cache(c, cursor, cursor_count), io_local);
        return;
    }
    if (c->frames) {
        sk_frames_sample(c, tw, cursor, io_local, NULL, sk_soa_use_avx2());
        return;
    }
    slerp_batch sb;
    sb.n = 0;
    sb.cap = 4;
#ifdef SK_SLERP_AVX2
    if (sk_simd_best() >= SK_SIMD_AVX2) sb.cap = 8;
#endif
    for (uint32_t i = 0; i < c->track_count; i++) {
        const sk_track *tr = &c->tracks[i];
        float *w = tr->path == SK_PATH_WEIGHTS ? io_weights + s->weight_offset[tr->joint] : NULL;
        if (tr->path == SK_PATH_WEIGHTS && !io_weights) continue;
        sample_track_batched(c, tr, tw, cursor ? &cursor[i] : NULL, io_local, w, &sb);
    }
    slerp_flush(&sb);
}

sk_result sk_clip_sample_tracks(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                                size_t cursor_count, sk_pose *io, sk_error *err) {
    sk_result r = sample_args(c, s, cursor, cursor_count, io, "sk_clip_sample_tracks", err);
    if (r != SK_OK) return r;
    sample_tracks(c, s, t, loop, cursor, cursor_count, io->local, io->weight_count ? io->weights : NULL);
    return SK_OK;
}

sk_result sk_clip_sample_cursor(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, uint32_t *cursor,
                                size_t cursor_count, sk_pose *out, sk_error *err) {
    sk_result r = sample_args(c, s, cursor, cursor_count, out, "sk_clip_sample", err);
    if (r != SK_OK) return r;
    float *w = out->weight_count ? out->weights : NULL;
    if (w) memcpy(w, s->rest_weights, (size_t)s->weight_total * sizeof(float));
    if (c->kind == SK_CLIP_COMPRESSED) { /* no morph weights, no key search */
        double tw = sk_clip_wrap_time(c, t, loop);
        uint32_t *cache = sk_cclip_cache(c, cursor, cursor_count);
        /* many animated tracks per joint: the whole pose through SoA groups */
        if (c->cc.pose_rows && sk_cclip_sample_pose(c, s, tw, cache, out->local)) return SK_OK;
        memcpy(out->local, s->rest, (size_t)s->joint_count * sizeof(sk_transform));
        sk_cclip_sample_tracks(c, tw, cache, out->local);
        return SK_OK;
    }
    memcpy(out->local, s->rest, (size_t)s->joint_count * sizeof(sk_transform));
    sample_tracks(c, s, t, loop, cursor, cursor_count, out->local, w);
    return SK_OK;
}

sk_result sk_clip_sample(const sk_clip *c, const sk_skeleton *s, double t, sk_loop_mode loop, sk_pose *out,
                         sk_error *err) {
    return sk_clip_sample_cursor(c, s, t, loop, NULL, 0, out, err);
}

/* Frame-major clips keep one key position for all their tracks. */
size_t sk_clip_cursor_size(const sk_clip *c) { return !c ? 0 : sk_clip_cursor_words(c); }

size_t sk_clip_cursor_cache_size(const sk_clip *c) {
    size_t n = sk_clip_cursor_size(c);
    return c && c->kind == SK_CLIP_COMPRESSED && c->cc.cache_words > n ? c->cc.cache_words : n;
}

size_t sk_clip_cursor_ahead_size(const sk_clip *c) {
    size_t n = sk_clip_cursor_cache_size(c);
    return c && c->kind == SK_CLIP_COMPRESSED && c->cc.ahead_words > n ? c->cc.ahead_words : n;
}
