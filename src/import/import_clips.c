/* skelanim — assimp animations to clips: keys as stored, one track per
 * channel and path (translation, rotation, scale), times in seconds. */
#include "import/import_ctx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FAIL(code, ...) (sk_error_set(c->err, code, __VA_ARGS__))
#define OOM() FAIL(SK_ERR_OUT_OF_MEMORY, "%s: out of memory", c->what)

/* assimp's default when a file gives no tick rate (its own importers and
 * players use it). */
#define SK_IMPORT_DEFAULT_TICKS 25.0

typedef struct key_buf {
    float *times, *values;
    size_t cap; /* keys */
} key_buf;

static bool key_room(sk_import_ctx *c, key_buf *k, size_t n) {
    if (n <= k->cap) return true;
    size_t nc = k->cap ? k->cap : 64;
    while (nc < n) nc *= 2;
    float *t = sk_realloc(c->alloc, k->times, k->cap * sizeof *t, nc * sizeof *t);
    if (t) k->times = t;
    float *v = sk_realloc(c->alloc, k->values, k->cap * 4 * sizeof *v, nc * 4 * sizeof *v);
    if (v) k->values = v;
    if (!t || !v) return false;
    k->cap = nc;
    return true;
}

/* Checks and adds one track. keys: the assimp key array; stride and the
 * offsets of mTime and the value's floats in it. */
static sk_result add_track(sk_import_ctx *c, sk_clip_builder *b, key_buf *kb, const char *where, uint32_t joint,
                           sk_track_path path, const void *keys, size_t stride, uint32_t count, double tps,
                           double *last) {
    if (!count) return SK_OK;
    if (!keys) return FAIL(SK_ERR_INVALID_DATA, "%s: %u keys without a list", where, count);
    if (!key_room(c, kb, count)) return OOM();
    uint32_t width = path == SK_PATH_ROTATION ? 4 : 3;
    const char *names[] = {"position", "rotation", "scaling"};
    for (uint32_t k = 0; k < count; k++) {
        const unsigned char *key = (const unsigned char *)keys + (size_t)k * stride;
        double t;
        memcpy(&t, key, sizeof t); /* mTime comes first in every key */
        double s = t / tps;
        float *v = kb->values + (size_t)k * width;
        if (path == SK_PATH_ROTATION) {
            const struct aiQuatKey *q = (const struct aiQuatKey *)key;
            v[0] = q->mValue.x, v[1] = q->mValue.y, v[2] = q->mValue.z, v[3] = q->mValue.w;
        } else {
            const struct aiVectorKey *q = (const struct aiVectorKey *)key;
            v[0] = q->mValue.x, v[1] = q->mValue.y, v[2] = q->mValue.z;
        }
        bool finite = isfinite(s) && fabs(s) < 1e30;
        for (uint32_t i = 0; i < width; i++) finite = finite && isfinite(v[i]);
        if (!finite)
            return FAIL(SK_ERR_INVALID_DATA, "%s: %s key %u: time or value not finite", where, names[path], k);
        kb->times[k] = (float)s;
        if (k && kb->times[k] < kb->times[k - 1])
            return FAIL(SK_ERR_INVALID_DATA, "%s: %s key %u: time %g s before the previous key's %g s", where,
                        names[path], k, (double)kb->times[k], (double)kb->times[k - 1]);
        if (path == SK_PATH_ROTATION) {
            double l = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
            if (!(l > 1e-12) || !isfinite(l))
                return FAIL(SK_ERR_INVALID_DATA, "%s: rotation key %u: not a rotation (length %g)", where, k, sqrt(l));
        }
    }
    if (kb->times[count - 1] > *last) *last = kb->times[count - 1];
    sk_track_desc d = {.joint = joint, .path = path, .interpolation = SK_INTERP_LINEAR, .key_count = count,
                       .times = kb->times, .values = kb->values, .width = width};
    sk_error e = {0};
    sk_result r = sk_clip_builder_add_track(b, &d, &e);
    if (r != SK_OK) return FAIL(r, "%s: %s: %s", where, names[path], e.message);
    return SK_OK;
}

static sk_result import_clip(sk_import_ctx *c, uint32_t ai, const struct aiAnimation *an, uint32_t *seen,
                             key_buf *kb, sk_clip **out) {
    char buf[MAXLEN], nbuf[MAXLEN], where[MAXLEN * 2 + 100];
    const char *name = sk_import_str(&an->mName, buf);
    double tps = an->mTicksPerSecond;
    if (!(tps > 0.0) || !isfinite(tps)) {
        if (tps != 0.0)
            sk_import_warn(c, "%s: animations/%u '%.120s': %g ticks per second: %g assumed", c->what, ai, name, tps,
                           SK_IMPORT_DEFAULT_TICKS);
        else
            sk_import_warn(c, "%s: animations/%u '%.120s': no tick rate: %g ticks per second assumed (assimp's default)",
                           c->what, ai, name, SK_IMPORT_DEFAULT_TICKS);
        tps = SK_IMPORT_DEFAULT_TICKS;
    }
    if (an->mNumMeshChannels || an->mNumMorphMeshChannels) {
        char msg[MAXLEN + 160];
        snprintf(msg, sizeof msg, "%s: animation '%.120s' (and maybe others): mesh and morph animation is not converted",
                 c->what, name);
        sk_import_warn_once(c, SK_IMPORT_WARN_MORPH_ANIM, msg);
    }
    if (an->mNumChannels && !an->mChannels)
        return FAIL(SK_ERR_INVALID_DATA, "%s: animations/%u '%.120s': %u channels without a list", c->what, ai, name,
                    an->mNumChannels);
    sk_clip_builder *b = NULL;
    sk_result r = sk_clip_builder_create(name, c->alloc, &b, c->err);
    if (r != SK_OK) return r;
    double last = 0.0;
    uint32_t skipped = 0;
    for (uint32_t ch = 0; ch < an->mNumChannels; ch++) {
        const struct aiNodeAnim *na = an->mChannels[ch];
        if (!na) {
            r = FAIL(SK_ERR_INVALID_DATA, "%s: animations/%u '%.120s': channels/%u is NULL", c->what, ai, name, ch);
            goto fail;
        }
        const char *nn = sk_import_str(&na->mNodeName, nbuf);
        int32_t j = sk_import_find(c, nn);
        if (j < 0 || seen[j] == ai + 1) {
            sk_import_warn(c, "%s: animations/%u '%.120s': channels/%u for '%.120s' %s: skipped", c->what, ai, name, ch, nn,
                           j < 0 ? "names no node" : "repeats a channel of the same node");
            skipped++;
            continue;
        }
        seen[j] = ai + 1;
        snprintf(where, sizeof where, "%s: animations/%u '%.120s': channels/%u '%.120s'", c->what, ai, name, ch, nn);
        if ((r = add_track(c, b, kb, where, (uint32_t)j, SK_PATH_TRANSLATION, na->mPositionKeys,
                           sizeof(struct aiVectorKey), na->mNumPositionKeys, tps, &last)) != SK_OK ||
            (r = add_track(c, b, kb, where, (uint32_t)j, SK_PATH_ROTATION, na->mRotationKeys, sizeof(struct aiQuatKey),
                           na->mNumRotationKeys, tps, &last)) != SK_OK ||
            (r = add_track(c, b, kb, where, (uint32_t)j, SK_PATH_SCALE, na->mScalingKeys, sizeof(struct aiVectorKey),
                           na->mNumScalingKeys, tps, &last)) != SK_OK)
            goto fail;
    }
    (void)skipped;
    /* The animation's stated length when it is longer than its keys (a held
     * pose at the end); otherwise the last key, as glTF players do. */
    double d = an->mDuration / tps;
    if (isfinite(d) && d > last && d < 1e9) sk_clip_builder_set_duration(b, d);
    return sk_clip_builder_finish(b, out, c->err);
fail:
    sk_clip_builder_destroy(b);
    return r;
}

sk_result sk_import_clips(sk_import_ctx *c) {
    const struct aiScene *sc = c->scene;
    uint32_t n = sc->mNumAnimations;
    if (!n) return SK_OK;
    if (!sc->mAnimations) return FAIL(SK_ERR_INVALID_DATA, "%s: %u animations without a list", c->what, n);
    if (n > 1000000u) return FAIL(SK_ERR_LIMIT, "%s: %u animations", c->what, n);
    sk_asset *a = c->asset;
    sk_clip **clips = sk_asset_alloc(a, (size_t)n * sizeof *clips);
    uint32_t *seen = sk_alloc(c->alloc, ((size_t)c->node_count + 1) * sizeof *seen);
    key_buf kb = {0};
    sk_result r = SK_OK;
    if (!clips || !seen) {
        r = OOM();
        goto done;
    }
    a->clips = clips;
    for (uint32_t i = 0; i < n; i++) {
        if (!sc->mAnimations[i]) {
            r = FAIL(SK_ERR_INVALID_DATA, "%s: animations/%u is NULL", c->what, i);
            goto done;
        }
        if ((r = import_clip(c, i, sc->mAnimations[i], seen, &kb, &clips[i])) != SK_OK) goto done;
        a->clip_count = i + 1; /* the asset owns (and destroys) the clips made so far */
    }
done:
    sk_free(c->alloc, seen, ((size_t)c->node_count + 1) * sizeof *seen);
    sk_free(c->alloc, kb.times, kb.cap * sizeof *kb.times);
    sk_free(c->alloc, kb.values, kb.cap * 4 * sizeof *kb.values);
    return r;
}
