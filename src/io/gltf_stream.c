/* glTF reader: a .glb's BIN chunk read as it is needed (sk_gltf_load_file
 * with the default file system, files of SK_GLTF_STREAM_MIN bytes or more
 * whose animation keys are most of the chunk).
 *
 * Reading a 4 MB capture whole cost more than a third of its load: the
 * kernel zeroes fresh pages for it and copies the file into them, and the
 * clip builder then reads the keys back from memory that has left the
 * cache. Here the JSON decides first which byte ranges of the BIN chunk are
 * keys of LINEAR translation, rotation and scale channels (the frame-major
 * clips' keys); every other byte is read into the BIN's memory at once, and
 * those ranges are not. The clip builder fetches a joint group's keys at a
 * time from the file into a block that stays in the cache
 * (sk_clip_builder_add_track_ref_lazy, sk_gl_stream_fetch).
 *
 * Every other reader of the BIN's bytes (accessors, sparse data, images)
 * asks for them first (sk_gl_stream_ensure), which reads any of those
 * ranges it touches into place: which ranges are streamed decides only how
 * fast a file loads, never what it loads. */
#include "io/file_internal.h"
#include "io/gltf_internal.h"

#include <stdlib.h>
#include <string.h>

/* Ranges at most this far apart are one range (the bytes between read
 * with them); more ranges than GL_STREAM_MAX_RANGES: the BIN is read whole. */
#define GL_STREAM_MERGE 64u
#define GL_STREAM_MAX_RANGES 4096u

static int range_cmp(const void *a, const void *b) {
    const gl_range *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* An accessor's byte range in the BIN chunk when it is one the clip
 * builder can stream: tightly packed float VEC3/VEC4 in buffer 0, no sparse
 * values. Anything unexpected: not streamed (the loader's own checks come
 * later and report it). */
static bool stream_range(gl_ctx *g, uint32_t ai, gl_range *out) {
    const sk_jv *o = g->j_accessors[ai];
    const sk_jv *ct = j_get(o, "componentType"), *ty = j_get(o, "type"), *cnt = j_get(o, "count");
    const sk_jv *bv = j_get(o, "bufferView"), *ao = j_get(o, "byteOffset"), *nm = j_get(o, "normalized");
    if (!j_is_number(ct) || ct->valuedouble != 5126.0 || !j_is_string(ty) || j_get(o, "sparse")) return false;
    if (nm && !(j_is_bool(nm) && !j_is_true(nm))) return false;
    uint32_t comps = strcmp(ty->valuestring, "VEC3") == 0 ? 3u : strcmp(ty->valuestring, "VEC4") == 0 ? 4u : 0u;
    if (!comps || !j_is_uint(cnt, 4294967296.0) || cnt->valuedouble < 1 || !j_is_uint(bv, g->n_views)) return false;
    if (ao && !j_is_uint(ao, 4294967296.0)) return false;
    const sk_jv *v = g->j_views[(uint32_t)bv->valuedouble];
    const sk_jv *vb = j_get(v, "buffer"), *vo = j_get(v, "byteOffset"), *vl = j_get(v, "byteLength"),
                *vs = j_get(v, "byteStride");
    if (!j_is_uint(vb, 1.0) || !j_is_uint(vl, 4294967296.0) || (vo && !j_is_uint(vo, 4294967296.0))) return false;
    uint64_t elem = comps * 4u, aoff = ao ? (uint64_t)ao->valuedouble : 0, voff = vo ? (uint64_t)vo->valuedouble : 0;
    if (vs && !(j_is_uint(vs, 256.0) && (uint64_t)vs->valuedouble == elem)) return false;
    uint64_t len = (uint64_t)cnt->valuedouble * elem, vlen = (uint64_t)vl->valuedouble;
    if (aoff > vlen || len > vlen - aoff || voff > g->bin_size || vlen > g->bin_size - voff || (voff + aoff) % 4u)
        return false;
    out->at = (size_t)(voff + aoff);
    out->len = (size_t)len;
    out->filled = false;
    return true;
}

sk_result sk_gl_stream_bin(gl_ctx *g) {
    size_t size = g->bin_size;
    /* Accessors that LINEAR translation, rotation or scale channels read as
     * their output (1), and those read as key times (2: read at once). */
    uint8_t *use = tmp_alloc(g, g->n_accessors ? g->n_accessors : 1, 1);
    if (!use) return oom(g);
    memset(use, 0, g->n_accessors ? g->n_accessors : 1);
    bool buffer0_bin = g->n_buffers > 0 && !j_get(g->j_buffers[0], "uri");
    uint32_t want = 0;
    for (uint32_t a = 0; buffer0_bin && a < g->n_anims; a++) {
        const sk_jv *samplers = j_get(g->j_anims[a], "samplers"), *chans = j_get(g->j_anims[a], "channels");
        if (!j_is_array(samplers) || !j_is_array(chans)) continue;
        uint32_t ns = (uint32_t)j_size(samplers), k = 0;
        const sk_jv **stable = tmp_alloc(g, ns ? ns : 1, sizeof *stable); /* by index, not a walk per channel */
        if (!stable) return oom(g);
        for (const sk_jv *s = j_child(samplers); s; s = j_next(s)) stable[k++] = s;
        for (const sk_jv *c = j_child(chans); c; c = j_next(c)) {
            const sk_jv *si = j_get(c, "sampler"), *tg = j_get(c, "target");
            const sk_jv *path = tg ? j_get(tg, "path") : NULL;
            if (!j_is_uint(si, ns) || !j_is_string(path)) continue;
            if (strcmp(path->valuestring, "translation") != 0 && strcmp(path->valuestring, "rotation") != 0 &&
                strcmp(path->valuestring, "scale") != 0)
                continue;
            const sk_jv *s = stable[(uint32_t)si->valuedouble];
            const sk_jv *interp = s ? j_get(s, "interpolation") : NULL;
            if (!j_is_object(s) || (interp && !(j_is_string(interp) && strcmp(interp->valuestring, "LINEAR") == 0))) continue;
            const sk_jv *in = j_get(s, "input"), *out = j_get(s, "output");
            if (j_is_uint(in, g->n_accessors)) use[(uint32_t)in->valuedouble] = 2;
            if (j_is_uint(out, g->n_accessors) && !use[(uint32_t)out->valuedouble]) {
                use[(uint32_t)out->valuedouble] = 1;
                want++;
            }
        }
    }
    gl_range *r = want && want <= GL_STREAM_MAX_RANGES ? tmp_alloc(g, want, sizeof *r) : NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; r && i < g->n_accessors; i++)
        if (use[i] == 1 && stream_range(g, i, &r[n])) n++;
    if (n) {
        qsort(r, n, sizeof *r, range_cmp);
        uint32_t m = 0;
        for (uint32_t i = 1; i < n; i++) {
            size_t end = r[m].at + r[m].len;
            if (r[i].at <= end + GL_STREAM_MERGE) {
                size_t e = r[i].at + r[i].len;
                if (e > end) r[m].len = e - r[m].at;
            } else
                r[++m] = r[i];
        }
        n = m + 1;
    }
    /* Keys that are not most of the chunk (a mesh with its textures and a
     * short clip): the whole chunk at once, into the allocator's memory,
     * which the next load reuses; streaming them saves little and costs a
     * read per joint group. */
    size_t lazy_bytes = 0;
    for (uint32_t i = 0; i < n; i++) lazy_bytes += r[i].len;
    if (!g->stream_any_share && lazy_bytes <= size / 2) n = 0;
    /* Mostly keys (a capture), with the default allocator: pages of their
     * own. The streamed ranges are never written there, so never backed,
     * and the allocator's heap does not grow by the chunk's size on every
     * load: it grows by the clip's, which is then its largest block. With
     * the chunk (or the whole file) in the heap as well, a load's blocks
     * came to more than twice the largest, glibc gave the heap's top back
     * to the system when they were freed (its trim threshold), and every
     * load faulted on fresh pages again: 02_01.glb read whole took 0.46 ms
     * and 198 faults per load in a process of its own, 0.19 ms and 10
     * faults streamed into pages (docs/performance.md). */
    else if (n && g->alloc == sk_allocator_or_default(NULL))
        g->bin_mem = sk_file_pages(size, &g->bin_pages);
    if (!g->bin_mem) g->bin_mem = sk_realloc_raw(g->alloc, NULL, 0, size ? size : 1); /* every byte is read before use */
    if (!g->bin_mem) return fail(g, SK_ERR_OUT_OF_MEMORY, "out of memory for the %zu-byte BIN chunk", size);
    g->bin_mem_size = size ? size : 1;
    g->bin = g->bin_mem;
    /* everything else now, one read per gap between the streamed ranges */
    size_t at = 0;
    for (uint32_t i = 0; i <= n; i++) {
        size_t end = i < n ? r[i].at : size;
        if (end > at && !sk_file_pread(g->file, g->bin_mem + at, end - at, g->bin_at + at))
            return fail(g, SK_ERR_IO, "the file changed while it was being read (its BIN chunk is shorter)");
        if (i < n) at = r[i].at + r[i].len;
    }
    g->lazy = n ? r : NULL;
    g->n_lazy = n;
    return SK_OK;
}

/* The first streamed range that ends after byte `at`. */
static uint32_t first_range(const gl_ctx *g, size_t at) {
    uint32_t lo = 0, hi = g->n_lazy;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->lazy[mid].at + g->lazy[mid].len <= at) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

sk_result sk_gl_stream_ensure(gl_ctx *g, const void *p, size_t n) {
    if (!g->n_lazy || !p || !n) return SK_OK;
    const uint8_t *b = p;
    if (b < g->bin_mem || b >= g->bin_mem + g->bin_size) return SK_OK;
    size_t at = (size_t)(b - g->bin_mem), end = n > g->bin_size - at ? g->bin_size : at + n;
    for (uint32_t i = first_range(g, at); i < g->n_lazy && g->lazy[i].at < end; i++) {
        gl_range *r = &g->lazy[i];
        if (r->filled) continue;
        if (!sk_file_pread(g->file, g->bin_mem + r->at, r->len, g->bin_at + r->at))
            return fail(g, SK_ERR_IO, "the file changed while it was being read (its BIN chunk is shorter)");
        r->filled = true;
    }
    return SK_OK;
}

bool sk_gl_stream_pending(const gl_ctx *g, const void *p, size_t n) {
    if (!g->n_lazy || !p || !n) return false;
    const uint8_t *b = p;
    if (b < g->bin_mem || b >= g->bin_mem + g->bin_size) return false;
    size_t at = (size_t)(b - g->bin_mem), end = n > g->bin_size - at ? g->bin_size : at + n;
    for (uint32_t i = first_range(g, at); i < g->n_lazy && g->lazy[i].at < end; i++)
        if (!g->lazy[i].filled) return true;
    return false;
}

bool sk_gl_stream_fetch(void *user, const float *src, size_t bytes, float *dst) {
    gl_ctx *g = user;
    if (dst == src) return sk_gl_stream_ensure(g, src, bytes) == SK_OK;
    const uint8_t *b = (const uint8_t *)src;
    if (b < g->bin_mem || (size_t)(b - g->bin_mem) > g->bin_size || bytes > g->bin_size - (size_t)(b - g->bin_mem))
        return false;
    return sk_file_pread(g->file, dst, bytes, g->bin_at + (size_t)(b - g->bin_mem));
}
