/* glTF reader: animations (§3.11) into clips: samplers, channels, key
 * times and values checked, tracks handed to the clip builder. */
#include "io/gltf_internal.h"

#include <math.h>
#include <stdio.h>
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

/* ---- animations (§3.11) --------------------------------------------------- */

/* finite: whether every component is finite (no word with all exponent bits
 * set). True when every one of the n quaternions' squared lengths, in float, lies
 * in [0.98476, 1.01539]: well inside the exact test's (1 +- 0.00769)^2 =
 * [0.984680, 1.015439] (float's rounding of four squares and three sums is
 * below 3e-7 there), so every key passes it. False sends the caller to the
 * exact test, key by key, which names the first key that fails. Four keys
 * at a time, transposed, with the smallest and largest seen so far. */
static bool rotations_clearly_unit(const float *q, uint32_t n, bool *finite) {
    uint32_t bad = 0; /* sign bit: a word with every exponent bit set (Inf or NaN) */
#if defined(__SSE2__) && !defined(SK_NO_SIMD)
    __m128 lo = _mm_set1_ps(2.0f), hi = _mm_setzero_ps();
    const __m128i expo = _mm_set1_epi32(0x7f800000), one = _mm_set1_epi32(0x00800000);
    __m128i badv = _mm_setzero_si128();
    uint32_t e = 0;
    for (; e + 4 <= n; e += 4, q += 16) {
        __m128 x = _mm_loadu_ps(q), y = _mm_loadu_ps(q + 4), z = _mm_loadu_ps(q + 8), w = _mm_loadu_ps(q + 12);
#define SK_BAD4(v) _mm_add_epi32(_mm_and_si128(_mm_castps_si128(v), expo), one)
        badv = _mm_or_si128(badv, _mm_or_si128(_mm_or_si128(SK_BAD4(x), SK_BAD4(y)), _mm_or_si128(SK_BAD4(z), SK_BAD4(w))));
#undef SK_BAD4
        _MM_TRANSPOSE4_PS(x, y, z, w);
        __m128 l2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_add_ps(_mm_mul_ps(z, z), _mm_mul_ps(w, w)));
        lo = _mm_min_ps(lo, l2), hi = _mm_max_ps(hi, l2);
    }
    float l[4], h[4];
    _mm_storeu_ps(l, lo), _mm_storeu_ps(h, hi);
    float mn = fminf(fminf(l[0], l[1]), fminf(l[2], l[3])), mx = fmaxf(fmaxf(h[0], h[1]), fmaxf(h[2], h[3]));
    uint32_t b4[4];
    _mm_storeu_si128((__m128i *)(void *)b4, badv);
    bad = b4[0] | b4[1] | b4[2] | b4[3];
#else
    float mn = 2.0f, mx = 0.0f;
    uint32_t e = 0;
#endif
    for (; e < n; e++, q += 4) {
        float l2 = (q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]);
        mn = l2 < mn ? l2 : mn, mx = l2 > mx ? l2 : mx;
        for (int c = 0; c < 4; c++) {
            uint32_t u;
            memcpy(&u, q + c, 4);
            bad |= (u & 0x7f800000u) + 0x00800000u;
        }
    }
    *finite = (bad & 0x80000000u) == 0;
    return *finite && mn >= 0.98476f && mx <= 1.01539f;
}

/* A channel whose values the clip builder checks in its pass over them
 * (sk_clip_builder_add_track_ref_stats): decided on once the clip is built
 * (check_deferred). */
typedef struct deferred_keys {
    sk_key_stats st;
    uint32_t oa, si, joint, keys;
    uint8_t path;
    const float *times, *values;
} deferred_keys;

/* The exact unit test of rotation keys (the validator's tolerance), element by element. */
static sk_result rotations_exact(gl_ctx *g, const float *values, uint32_t elems, bool cubic, const char *op) {
    for (uint32_t e = 0; e < elems; e++) {
        if (cubic && e % 3 != 1) continue;
        const float *q = values + (size_t)e * 4;
        double l2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
        /* well inside (1 +- 0.00769)^2: no square root needed; near the
         * edges the exact test below decides */
        if (l2 > 0.98475 && l2 < 1.01540) continue;
        double len = sqrt(l2);
        if (fabs(len - 1.0) > 0.00769)
            return fail(g, SK_ERR_INVALID_DATA, "%s: rotation element %u is not a unit quaternion (length %g)", op, e, len);
    }
    return SK_OK;
}

static void track_bound_into(gl_ctx *g, uint32_t j, sk_track_path path, double bound) {
    double *slot = path == SK_PATH_TRANSLATION ? &g->anim_tb[j] : &g->anim_sb[j];
    *slot = fmax(*slot, bound);
}

/* The checks of deferred channels from what the builder saw: Inf/NaN (the
 * accessor's message), unit rotations (float squared lengths inside the
 * band of rotations_clearly_unit, else the exact test), and the bounds for
 * gltf_limits.c: a scale's largest |component| exactly; a translation's
 * largest length from its float squared length, rounded up by 2^-20 (more
 * than float's error there, so still a bound), exactly when that is not
 * finite or above 1e30. */
static sk_result check_deferred(gl_ctx *g, uint32_t ai, const deferred_keys *d, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        const deferred_keys *k = &d[i];
        if (k->st.bad & 0x80000000u) {
            TRY(sk_gl_acc_finite(g, k->oa)); /* fails, naming the first such value */
            char op[96];
            size_t sn = gl_path(op, sizeof op, "/animations/", ai, "/samplers/");
            gl_path(op + sn, sizeof op - sn, "", k->si, "/output");
            return fail(g, SK_ERR_INVALID_DATA, "%s: a value is not finite", op); /* (not reached) */
        }
        g->accs[k->oa].finite_pending = false;
        if (k->path == SK_PATH_ROTATION) {
            if (k->st.lo >= 0.98476f && k->st.hi <= 1.01539f) continue;
            char op[96];
            size_t sn = gl_path(op, sizeof op, "/animations/", ai, "/samplers/");
            gl_path(op + sn, sizeof op - sn, "", k->si, "/output");
            TRY(sk_gl_stream_ensure(g, k->values, (size_t)k->keys * 4u * sizeof(float)));
            TRY(rotations_exact(g, k->values, k->keys, false, op));
        } else if (k->path == SK_PATH_SCALE) {
            track_bound_into(g, k->joint, SK_PATH_SCALE, (double)k->st.hi);
        } else {
            if (!(k->st.hi <= 1e30f)) TRY(sk_gl_stream_ensure(g, k->values, (size_t)k->keys * 3u * sizeof(float)));
            double bound = k->st.hi <= 1e30f ? sqrt((double)k->st.hi) * (1.0 + 0x1p-20)
                                             : sk_gl_track_bound(k->times, k->values, k->keys, 3, false, true, NULL);
            track_bound_into(g, k->joint, SK_PATH_TRANSLATION, bound);
        }
    }
    return SK_OK;
}

static sk_result load_channel(gl_ctx *g, sk_clip_builder *b, uint32_t ai, uint32_t ci, const sk_jv *ch,
                              const sk_jv **samplers, uint32_t n_samplers, uint8_t *seen, deferred_keys *defer,
                              uint32_t *n_defer) {
    char path[96];
    size_t pn = gl_path(path, sizeof path, "/animations/", ai, "/channels/");
    gl_path(path + pn, sizeof path - pn, "", ci, NULL);
    if (!j_is_object(ch)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", path);
    uint32_t si = 0;
    TRY(sk_gl_req_index(g, ch, "sampler", n_samplers, "sampler", path, &si));
    const sk_jv *target = j_get(ch, "target");
    char tp[112];
    gl_cat(tp, sizeof tp, path, "/target");
    if (!j_is_object(target)) return fail(g, SK_ERR_INVALID_DATA, "%s: required object missing", tp);
    const char *pathname;
    TRY(sk_gl_opt_string(g, target, "path", tp, &pathname));
    if (!pathname) return fail(g, SK_ERR_INVALID_DATA, "%s/path: required property missing", tp);
    int32_t node;
    TRY(sk_gl_opt_index(g, target, "node", g->n_nodes, "node", tp, &node));
    sk_track_path tpath;
    if (strcmp(pathname, "translation") == 0) tpath = SK_PATH_TRANSLATION;
    else if (strcmp(pathname, "rotation") == 0) tpath = SK_PATH_ROTATION;
    else if (strcmp(pathname, "scale") == 0) tpath = SK_PATH_SCALE;
    else if (strcmp(pathname, "weights") == 0) tpath = SK_PATH_WEIGHTS;
    else if (strcmp(pathname, "pointer") == 0) return SK_OK; /* KHR_animation_pointer: not ours */
    else return fail(g, SK_ERR_INVALID_DATA, "%s/path: \"%s\" is not a glTF animation path", tp, pathname);
    /* §3.11: target.node is optional (an extension may target something else). */
    if (node < 0) return SK_OK;
    const gl_node *nd = &g->nodes[node];
    if (nd->has_matrix && !nd->matrix_identity)
        return fail(g, SK_ERR_INVALID_DATA, "%s/node: animated node %d is defined by a matrix", tp, node);
    uint32_t width = tpath == SK_PATH_ROTATION ? 4 : 3;
    if (tpath == SK_PATH_WEIGHTS) {
        width = nd->mesh >= 0 ? g->asset->meshes[nd->mesh].weight_count : 0;
        if (!width) return fail(g, SK_ERR_INVALID_DATA, "%s/node: node %d has no morph targets to animate", tp, node);
    }
    /* Two channels for the same node and path are forbidden. */
    uint8_t bit = (uint8_t)(1u << tpath);
    if (seen[node] & bit)
        return fail(g, SK_ERR_INVALID_DATA, "%s: node %d %s is already targeted by another channel", tp, node, pathname);
    seen[node] |= bit;

    /* Sampler. */
    const sk_jv *smp = samplers[si];
    char sp[96];
    size_t sn = gl_path(sp, sizeof sp, "/animations/", ai, "/samplers/");
    gl_path(sp + sn, sizeof sp - sn, "", si, NULL);
    if (!j_is_object(smp)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", sp);
    const char *interp;
    TRY(sk_gl_opt_string(g, smp, "interpolation", sp, &interp));
    sk_interpolation mode = SK_INTERP_LINEAR;
    if (!interp || strcmp(interp, "LINEAR") == 0) mode = SK_INTERP_LINEAR;
    else if (strcmp(interp, "STEP") == 0) mode = SK_INTERP_STEP;
    else if (strcmp(interp, "CUBICSPLINE") == 0) mode = SK_INTERP_CUBICSPLINE;
    else return fail(g, SK_ERR_INVALID_DATA, "%s/interpolation: \"%s\" is not a glTF interpolation", sp, interp);
    char ip[112], op[112];
    gl_cat(ip, sizeof ip, sp, "/input");
    gl_cat(op, sizeof op, sp, "/output");
    const sk_jv *jin = j_get(smp, "input"), *jout = j_get(smp, "output");
    if (!jin) return fail(g, SK_ERR_INVALID_DATA, "%s: required property missing", ip);
    if (!jout) return fail(g, SK_ERR_INVALID_DATA, "%s: required property missing", op);
    uint32_t ia = 0, oa = 0;
    TRY(sk_gl_acc_ref(g, jin, ip, "SCALAR", CB_F, &ia));
    /* Output component types: translation/scale FLOAT; rotation and weights
     * also normalised (unsigned) byte/short (§3.11, the output table). */
    unsigned allowed = tpath == SK_PATH_TRANSLATION || tpath == SK_PATH_SCALE
                           ? CB_F
                           : CB_F | CB_BN | CB_UBN | CB_SN | CB_USN;
    const char *otype = tpath == SK_PATH_WEIGHTS ? "SCALAR" : tpath == SK_PATH_ROTATION ? "VEC4" : "VEC3";
    TRY(sk_gl_acc_ref(g, jout, op, otype, allowed, &oa));
    const gl_acc *in = &g->accs[ia], *out = &g->accs[oa];
    if (!in->has_bounds) return fail(g, SK_ERR_INVALID_DATA, "%s: input accessor %u has no min/max", ip, ia);
    uint32_t keys = in->count;
    if (mode == SK_INTERP_CUBICSPLINE && keys < 2)
        return fail(g, SK_ERR_INVALID_DATA, "%s: CUBICSPLINE needs at least 2 keys, accessor %u has %u", ip, ia, keys);
    uint64_t expect = (uint64_t)keys * (mode == SK_INTERP_CUBICSPLINE ? 3u : 1u) *
                      (tpath == SK_PATH_WEIGHTS ? width : 1u);
    if (out->count != expect)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u has %u elements, expected %llu for %u keys", op, oa,
                    out->count, (unsigned long long)expect, keys);
    const float *times, *values;
    sk_arena_reset(&g->chan);
    /* Keys read where they lie in the buffer when they can be (the builder
     * then keeps a reference, no copy); else decoded into the channel arena. */
    bool by_ref = sk_gl_acc_viewable(g, ia) && sk_gl_acc_viewable(g, oa);
    const float *vv = NULL;
    bool pending = false; /* the values' Inf/NaN check is this function's (sk_gl_acc_float_view_unchecked) */
    /* LINEAR and STEP translations, rotations and scales by reference: the
     * builder checks their values in its pass over them (below), and reads
     * them from the file itself when they are streamed (gltf_stream.c) */
    bool deferrable = by_ref && mode != SK_INTERP_CUBICSPLINE && tpath != SK_PATH_WEIGHTS, lazy = false;
    if (by_ref) {
        TRY(sk_gl_acc_float_view(g, ia, ip, &times));
        if (deferrable) TRY(sk_gl_acc_float_view_lazy(g, oa, op, &vv, &pending, &lazy));
        else TRY(sk_gl_acc_float_view_unchecked(g, oa, op, &vv, &pending));
    } else {
        float *tt;
        TRY(sk_gl_acc_read_float(g, ia, &g->chan, ip, &tt));
        times = tt;
    }
    /* Key times are checked once per input accessor (channels share them). */
    for (uint32_t i = 0; !in->times_checked && i < keys; i++) {
        if (times[i] < 0.0f)
            return fail(g, SK_ERR_INVALID_DATA, "%s: key %u time %g is negative", ip, i, (double)times[i]);
        /* §3.11: strictly increasing. An input accessor with no bufferView
         * and no sparse data is all zeros by definition; glTF-Validator
         * accepts it (it checks stored data), so equal times are allowed
         * there (the clip then has all keys at t = 0). */
        bool stored = in->view >= 0 || in->sparse_count > 0;
        if (i > 0 && (stored ? !(times[i] > times[i - 1]) : times[i] < times[i - 1]))
            return fail(g, SK_ERR_INVALID_DATA, "%s: key times are not strictly increasing at key %u (%g after %g)", ip,
                        i, (double)times[i], (double)times[i - 1]);
    }
    g->accs[ia].times_checked = true;
    if (keys > 1 && in->view < 0 && in->sparse_count == 0)
        sk_gl_warn(g, "%s: accessor %u has no bufferView: its %u key times are all 0 (the track is a still pose at t = 0)",
                   ip, ia, keys);
    if (by_ref) values = vv;
    else {
        float *vals;
        TRY(sk_gl_acc_read_float(g, oa, &g->chan, op, &vals));
        values = vals;
    }
    sk_track_desc td;
    memset(&td, 0, sizeof td);
    td.joint = g->asset->node_to_joint[node];
    td.path = tpath;
    td.interpolation = mode;
    td.key_count = keys;
    td.times = times;
    td.values = values;
    td.width = width;
    sk_error e = {0};
    if (deferrable) {
        /* The values are checked in the builder's one pass over them (Inf/NaN
         * included, if still pending), and decided on after finish. */
        deferred_keys *d = &defer[(*n_defer)++];
        memset(d, 0, sizeof *d);
        d->oa = oa, d->si = si, d->joint = td.joint, d->keys = keys, d->path = (uint8_t)tpath;
        d->times = times, d->values = values;
        sk_result r = lazy ? sk_clip_builder_add_track_ref_lazy(b, &td, &d->st, &e)
                           : sk_clip_builder_add_track_ref_stats(b, &td, &d->st, &e);
        if (r != SK_OK) return fail(g, r, "%s: %s", path, e.message);
        return SK_OK;
    }
    bool unit = false;
    if (tpath == SK_PATH_ROTATION && mode != SK_INTERP_CUBICSPLINE) {
        bool finite = true;
        unit = rotations_clearly_unit(values, out->count, &finite);
        if (pending && !finite) return sk_gl_acc_finite(g, oa); /* fails, naming the first such value */
        if (pending) g->accs[oa].finite_pending = pending = false;
    }
    if (pending && tpath == SK_PATH_ROTATION) TRY(sk_gl_acc_finite(g, oa)); /* CUBICSPLINE: on its own */
    if (tpath == SK_PATH_ROTATION && !unit) TRY(rotations_exact(g, values, out->count, mode == SK_INTERP_CUBICSPLINE, op));
    if (tpath == SK_PATH_TRANSLATION || tpath == SK_PATH_SCALE) { /* for gltf_limits.c */
        uint32_t j = g->asset->node_to_joint[node];
        bool finite = true;
        double bound = sk_gl_track_bound(times, values, keys, width, mode == SK_INTERP_CUBICSPLINE,
                                         tpath == SK_PATH_TRANSLATION && width == 3, pending ? &finite : NULL);
        if (pending && !finite) return sk_gl_acc_finite(g, oa); /* fails, naming the first such value */
        if (pending) g->accs[oa].finite_pending = pending = false;
        track_bound_into(g, j, tpath, bound);
    }
    if (pending) TRY(sk_gl_acc_finite(g, oa)); /* weights */
    /* By reference the keys are the accessors' floats, checked above and when
     * the accessors were loaded (finite; times strictly increasing; rotations
     * of unit length): the builder does not check them again. */
    sk_result r = by_ref ? sk_clip_builder_add_track_ref_checked(b, &td, &e) : sk_clip_builder_add_track(b, &td, &e);
    if (r != SK_OK) return fail(g, r, "%s: %s", path, e.message);
    return SK_OK;
}

sk_result sk_gl_load_animations(gl_ctx *g) {
    sk_clip **clips = sk_asset_alloc(g->asset, (size_t)(g->n_anims ? g->n_anims : 1) * sizeof *clips);
    uint8_t *seen = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, 1);
    if (!clips || !seen) return oom(g);
    g->asset->clips = clips;
    uint32_t J = g->asset->skeleton ? g->asset->skeleton->joint_count : 0;
    g->anim_tb = sk_arena_alloc(&g->tmp, ((size_t)J + 1) * 2 * sizeof(double)); /* zeros */
    if (!g->anim_tb) return oom(g);
    g->anim_sb = g->anim_tb + J;
    for (uint32_t a = 0; a < g->n_anims; a++) {
        const sk_jv *o = g->j_anims[a];
        char path[64];
        gl_path(path, sizeof path, "/animations/", a, NULL);
        const char *name;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        const sk_jv *chans, *samplers;
        uint32_t nc, ns;
        TRY(sk_gl_array_len(g, o, "channels", path, &chans, &nc));
        TRY(sk_gl_array_len(g, o, "samplers", path, &samplers, &ns));
        if (!chans) return fail(g, SK_ERR_INVALID_DATA, "%s/channels: required property missing", path);
        if (!samplers) return fail(g, SK_ERR_INVALID_DATA, "%s/samplers: required property missing", path);
        memset(seen, 0, g->n_nodes ? g->n_nodes : 1);
        const sk_jv **stable = tmp_alloc(g, ns ? ns : 1, sizeof *stable);
        if (!stable) return oom(g);
        uint32_t k = 0;
        for (const sk_jv *c = j_child(samplers); c; c = j_next(c)) stable[k++] = c;
        sk_clip_builder *b;
        sk_error e = {0};
        sk_result r = sk_clip_builder_create(name ? name : "", g->alloc, &b, &e);
        if (r != SK_OK) return fail(g, r, "%s: %s", path, e.message);
        if (g->n_lazy) sk_clip_builder_set_fetch(b, sk_gl_stream_fetch, g);
        /* Reserve the builder's storage from the samplers' accessor counts (a hint:
         * indices are validated channel by channel below). */
        size_t rkeys = 0, rvals = 0;
        for (const sk_jv *c = j_child(chans); c; c = j_next(c)) {
            const sk_jv *si = j_get(c, "sampler");
            if (!j_is_uint(si, ns)) continue;
            const sk_jv *in = j_get(stable[(uint32_t)si->valuedouble], "input");
            const sk_jv *outp = j_get(stable[(uint32_t)si->valuedouble], "output");
            /* keys the builder will copy: channels whose keys are not read in place */
            if (j_is_uint(in, g->n_accessors) && j_is_uint(outp, g->n_accessors) &&
                sk_gl_acc_viewable(g, (uint32_t)in->valuedouble) && sk_gl_acc_viewable(g, (uint32_t)outp->valuedouble))
                continue;
            if (j_is_uint(in, g->n_accessors)) rkeys += g->accs[(uint32_t)in->valuedouble].count;
            if (j_is_uint(outp, g->n_accessors)) {
                const gl_acc *oa = &g->accs[(uint32_t)outp->valuedouble];
                rvals += (size_t)oa->count * oa->ncomp;
            }
        }
        if (rkeys + rvals <= g->max_bytes) (void)sk_clip_builder_reserve(b, nc, rkeys, rvals, NULL);
        deferred_keys *defer = tmp_alloc(g, nc ? nc : 1, sizeof *defer);
        if (!defer) {
            sk_clip_builder_destroy(b);
            return oom(g);
        }
        uint32_t ci = 0, n_defer = 0;
        for (const sk_jv *c = j_child(chans); c; c = j_next(c), ci++) {
            r = load_channel(g, b, a, ci, c, stable, ns, seen, defer, &n_defer);
            if (r != SK_OK) {
                sk_clip_builder_destroy(b);
                return r;
            }
        }
        r = sk_clip_builder_finish(b, &clips[a], &e);
        if (r == SK_ERR_IO) /* a streamed key range that could not be read */
            return fail(g, r, "%s: %s: the file changed while it was being read", path, e.message);
        if (r != SK_OK) return fail(g, r, "%s: %s", path, e.message);
        r = check_deferred(g, a, defer, n_defer);
        if (r != SK_OK) {
            sk_clip_destroy(clips[a]);
            clips[a] = NULL;
            return r;
        }
        g->asset->clip_count = a + 1;
    }
    g->asset->clip_count = g->n_anims;
    return SK_OK;
}

