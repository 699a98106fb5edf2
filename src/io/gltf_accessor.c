/* glTF reader: bufferViews and accessors (§3.6.1.2, §3.6.2): every
 * component type, normalisation, byteStride, sparse, matrix column padding;
 * layouts validated up front, data decoded on demand within a budget. */
#include "io/gltf_internal.h"

#include <stdio.h>

sk_result sk_gl_load_views(gl_ctx *g) {
    g->views = tmp_alloc(g, g->n_views ? g->n_views : 1, sizeof *g->views);
    if (!g->views) return oom(g);
    char path[64];
    for (uint32_t i = 0; i < g->n_views; i++) {
        const sk_jv *o = g->j_views[i];
        gl_view *v = &g->views[i];
        gl_path(path, sizeof path, "/bufferViews/", i, NULL);
        uint64_t off, len, stride;
        bool has_stride;
        TRY(sk_gl_req_index(g, o, "buffer", g->n_buffers, "buffer", path, &v->buffer));
        TRY(sk_gl_opt_uint(g, o, "byteOffset", path, 0, GL_MAX_OFFSET, &off, NULL));
        TRY(sk_gl_req_uint(g, o, "byteLength", path, GL_MAX_OFFSET, &len));
        if (len < 1) return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: must be at least 1", path);
        /* §3.6.1.2: byteStride in [4, 252] and a multiple of 4 (schema). */
        TRY(sk_gl_opt_uint(g, o, "byteStride", path, 0, 1e18, &stride, &has_stride));
        if (has_stride && (stride < 4 || stride > 252 || stride % 4 != 0))
            return fail(g, SK_ERR_INVALID_DATA, "%s/byteStride: %llu is not a multiple of 4 in [4, 252]", path,
                        (unsigned long long)stride);
        if (has_stride && stride > len)
            return fail(g, SK_ERR_INVALID_DATA, "%s/byteStride: %llu is larger than byteLength %llu", path,
                        (unsigned long long)stride, (unsigned long long)len);
        size_t blen = g->buffers[v->buffer].length;
        if (off > blen || len > blen - off)
            return fail(g, SK_ERR_INVALID_DATA,
                        "%s/byteLength: bytes [%llu, %llu) exceed buffer %u (%zu bytes)", path,
                        (unsigned long long)off, (unsigned long long)(off + len), v->buffer, blen);
        v->offset = (size_t)off;
        v->length = (size_t)len;
        v->stride = (uint32_t)stride;
    }
    return SK_OK;
}

/* ---- accessors (§3.6.2) -------------------------------------------------- */

static uint32_t comp_size(uint32_t ct) {
    switch (ct) {
    case GL_BYTE: case GL_UNSIGNED_BYTE: return 1;
    case GL_SHORT: case GL_UNSIGNED_SHORT: return 2;
    case GL_UNSIGNED_INT: case GL_FLOAT: return 4;
    default: return 0;
    }
}


static uint32_t read_index(const uint8_t *p, uint32_t ct) {
    return ct == GL_UNSIGNED_BYTE ? p[0] : ct == GL_UNSIGNED_SHORT ? rd_u16(p) : rd_u32(p);
}

/* One component as a double; normalised integers per §3.11 ("Animations",
 * the normalisation table): signed c/(2^(n-1)-1) clamped to -1, unsigned c/(2^n-1). */
static double read_comp(const uint8_t *p, uint32_t ct, bool norm) {
    switch (ct) {
    case GL_BYTE: {
        double c = (double)(int8_t)p[0];
        return norm ? fmax(c / 127.0, -1.0) : c;
    }
    case GL_UNSIGNED_BYTE: return norm ? p[0] / 255.0 : (double)p[0];
    case GL_SHORT: {
        double c = (double)(int16_t)rd_u16(p);
        return norm ? fmax(c / 32767.0, -1.0) : c;
    }
    case GL_UNSIGNED_SHORT: return norm ? rd_u16(p) / 65535.0 : (double)rd_u16(p);
    case GL_UNSIGNED_INT: return (double)rd_u32(p);
    default: {
        uint32_t u = rd_u32(p);
        float f;
        memcpy(&f, &u, sizeof f);
        return (double)f;
    }
    }
}

static sk_result view_range(gl_ctx *g, uint32_t view, size_t offset, size_t bytes, const char *path,
                            const char *what, const uint8_t **out) {
    const gl_view *v = &g->views[view];
    if (offset > v->length || bytes > v->length - offset)
        return fail(g, SK_ERR_INVALID_DATA, "%s: %s of %zu bytes at byteOffset %zu exceed bufferView %u (%zu bytes)",
                    path, what, bytes, offset, view, v->length);
    const uint8_t *base = g->buffers[v->buffer].data;
    *out = base ? base + v->offset + offset : NULL;
    return SK_OK;
}

/* Whether none of n little-endian floats at p is Inf or NaN (exponent all
 * ones): the exponent bits plus one exponent unit reach the sign bit only
 * when they are all ones; one OR over all words (a loop the compiler
 * vectorises), then one test. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool floats_finite(const uint8_t *p, size_t n) {
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, p + i * 4u, 4);
        bad |= (u & 0x7f800000u) + 0x00800000u;
    }
    return (bad & 0x80000000u) == 0;
}

/* The bytes from an accessor's first element to the end of its last (count >= 1). */
static size_t acc_span(const gl_acc *a) { return a->stride * (a->count - 1u) + a->last_size; }

static sk_result load_accessor(gl_ctx *g, uint32_t index) {
    const sk_jv *o = g->j_accessors[index];
    gl_acc *a = &g->accs[index];
    a->missing_buffer = -1;
    char path[64];
    gl_path(path, sizeof path, "/accessors/", index, NULL);
    uint64_t ct, count, off;
    bool has_off;
    TRY(sk_gl_req_uint(g, o, "componentType", path, 1e9, &ct));
    a->comp_type = (uint32_t)ct;
    a->comp_size = comp_size(a->comp_type);
    TRY(sk_gl_req_uint(g, o, "count", path, 4294967295.0, &count));
    if (count < 1) return fail(g, SK_ERR_INVALID_DATA, "%s/count: must be at least 1", path);
    a->count = (uint32_t)count;
    const char *type;
    TRY(sk_gl_opt_string(g, o, "type", path, &type));
    if (!type) return fail(g, SK_ERR_INVALID_DATA, "%s/type: required property missing", path);
    static const struct { const char *name; uint32_t rows, cols; } types[] = {
        {"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1},
        {"MAT2", 2, 2}, {"MAT3", 3, 3}, {"MAT4", 4, 4},
    };
    a->rows = 0;
    a->type = "?";
    for (size_t i = 0; i < SK_ARRAY_COUNT(types); i++)
        if (strcmp(type, types[i].name) == 0) {
            a->rows = types[i].rows;
            a->cols = types[i].cols;
            a->type = types[i].name;
        }
    /* A type or component type we do not know (an extension's, say) cannot
     * be laid out: that is an error only if something we read uses the
     * accessor (sk_gl_acc_ref). */
    if (!a->comp_size || !a->rows) {
        char why[224];
        if (!a->comp_size)
            snprintf(why, sizeof why, "%s/componentType: %llu is not a glTF component type", path, (unsigned long long)ct);
        else snprintf(why, sizeof why, "%s/type: \"%.64s\" is not a glTF accessor type", path, type);
        if (!(a->unknown = sk_arena_strdup(&g->tmp, why))) return oom(g);
        a->type = "?";
        a->rows = a->cols = 0;
        return SK_OK;
    }
    const sk_jv *norm = j_get(o, "normalized");
    if (norm && !j_is_bool(norm)) return fail(g, SK_ERR_INVALID_DATA, "%s/normalized: expected a boolean", path);
    a->normalized = j_is_true(norm);
    if (a->normalized && (a->comp_type == GL_FLOAT || a->comp_type == GL_UNSIGNED_INT))
        return fail(g, SK_ERR_INVALID_DATA, "%s/normalized: not allowed for FLOAT or UNSIGNED_INT", path);
    a->ncomp = a->rows * a->cols;
    a->is_matrix = a->cols > 1;
    /* §3.6.2.4 "Data Alignment": matrix columns start on 4-byte boundaries,
     * so MAT2/MAT3 of bytes and MAT3 of shorts carry column padding. */
    a->col_stride = (size_t)a->rows * a->comp_size;
    if (a->is_matrix) a->col_stride = (a->col_stride + 3u) & ~(size_t)3u;
    a->elem_size = a->is_matrix ? a->col_stride * a->cols : a->col_stride;
    a->last_size = a->elem_size - a->col_stride + (size_t)a->rows * a->comp_size;
    a->has_bounds = j_get(o, "min") && j_get(o, "max");

    TRY(sk_gl_opt_index(g, o, "bufferView", g->n_views, "bufferView", path, &a->view));
    TRY(sk_gl_opt_uint(g, o, "byteOffset", path, 0, GL_MAX_OFFSET, &off, &has_off));
    if (a->view < 0) {
        if (has_off) return fail(g, SK_ERR_INVALID_DATA, "%s/byteOffset: defined without a bufferView", path);
        size_t bytes;
        if (!sk_size_mul(a->count, (size_t)a->ncomp * 4u, &bytes) || bytes > g->max_bytes)
            return fail(g, SK_ERR_LIMIT, "%s/count: %u zero-filled elements exceed the size limit", path, a->count);
    } else {
        const gl_view *v = &g->views[a->view];
        a->byte_offset = (size_t)off;
        /* §3.6.2.4: accessor offset into the view and into the buffer are
         * multiples of the component size; matrices start 4-byte aligned. */
        if (off % a->comp_size != 0)
            return fail(g, SK_ERR_INVALID_DATA, "%s/byteOffset: %llu is not a multiple of the component size %u",
                        path, (unsigned long long)off, a->comp_size);
        if ((v->offset + off) % a->comp_size != 0)
            return fail(g, SK_ERR_INVALID_DATA,
                        "%s/byteOffset: total offset %llu into buffer %u is not a multiple of the component size %u",
                        path, (unsigned long long)(v->offset + off), v->buffer, a->comp_size);
        if (a->is_matrix && off % 4 != 0)
            return fail(g, SK_ERR_INVALID_DATA, "%s/byteOffset: matrix accessors must be 4-byte aligned", path);
        a->stride = v->stride ? v->stride : a->elem_size;
        if (v->stride) {
            if (v->stride % a->comp_size != 0)
                return fail(g, SK_ERR_INVALID_DATA,
                            "%s: byteStride %u of bufferView %d is not a multiple of the component size %u", path,
                            v->stride, a->view, a->comp_size);
            if (v->stride < a->elem_size)
                return fail(g, SK_ERR_INVALID_DATA,
                            "%s: byteStride %u of bufferView %d is smaller than the element size %zu", path, v->stride,
                            a->view, a->elem_size);
        }
        size_t span, end;
        if (!sk_size_mul(a->stride, (size_t)a->count - 1u, &span) || !sk_size_add(span, a->last_size, &span) ||
            !sk_size_add(span, (size_t)off, &end) || end > v->length)
            return fail(g, SK_ERR_INVALID_DATA,
                        "%s/count: %u elements of %zu bytes (stride %zu, byteOffset %llu) exceed bufferView %d (%zu bytes)",
                        path, a->count, a->elem_size, a->stride, (unsigned long long)off, a->view, v->length);
        if (g->buffers[v->buffer].data) a->data = g->buffers[v->buffer].data + v->offset + off;
        else a->missing_buffer = (int32_t)v->buffer;
    }

    /* §3.6.2.3 "Sparse Accessors". */
    const sk_jv *sp = j_get(o, "sparse");
    if (sp) {
        char sp_path[96], ip[112], vp[112];
        snprintf(sp_path, sizeof sp_path, "%s/sparse", path);
        snprintf(ip, sizeof ip, "%s/indices", sp_path);
        snprintf(vp, sizeof vp, "%s/values", sp_path);
        if (!j_is_object(sp)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", sp_path);
        uint64_t sc, ict, ioff, voff;
        TRY(sk_gl_req_uint(g, sp, "count", sp_path, 4294967295.0, &sc));
        if (sc < 1 || sc > a->count)
            return fail(g, SK_ERR_INVALID_DATA, "%s/count: %llu is not in [1, %u] (the accessor count)", sp_path,
                        (unsigned long long)sc, a->count);
        const sk_jv *ji = j_get(sp, "indices"), *jv = j_get(sp, "values");
        if (!j_is_object(ji)) return fail(g, SK_ERR_INVALID_DATA, "%s: required object missing", ip);
        if (!j_is_object(jv)) return fail(g, SK_ERR_INVALID_DATA, "%s: required object missing", vp);
        uint32_t iv, vv;
        TRY(sk_gl_req_index(g, ji, "bufferView", g->n_views, "bufferView", ip, &iv));
        TRY(sk_gl_opt_uint(g, ji, "byteOffset", ip, 0, GL_MAX_OFFSET, &ioff, NULL));
        TRY(sk_gl_req_uint(g, ji, "componentType", ip, 1e9, &ict));
        if (ict != GL_UNSIGNED_BYTE && ict != GL_UNSIGNED_SHORT && ict != GL_UNSIGNED_INT)
            return fail(g, SK_ERR_INVALID_DATA, "%s/componentType: %llu is not an unsigned integer type", ip,
                        (unsigned long long)ict);
        TRY(sk_gl_req_index(g, jv, "bufferView", g->n_views, "bufferView", vp, &vv));
        TRY(sk_gl_opt_uint(g, jv, "byteOffset", vp, 0, GL_MAX_OFFSET, &voff, NULL));
        if (g->views[iv].stride)
            return fail(g, SK_ERR_INVALID_DATA, "%s/bufferView: bufferView %u of sparse indices has a byteStride", ip, iv);
        if (g->views[vv].stride)
            return fail(g, SK_ERR_INVALID_DATA, "%s/bufferView: bufferView %u of sparse values has a byteStride", vp, vv);
        uint32_t isz = comp_size((uint32_t)ict);
        if ((ioff + g->views[iv].offset) % isz != 0)
            return fail(g, SK_ERR_INVALID_DATA, "%s/byteOffset: not aligned to the index size %u", ip, isz);
        if ((voff + g->views[vv].offset) % a->comp_size != 0 || (a->is_matrix && (voff + g->views[vv].offset) % 4))
            return fail(g, SK_ERR_INVALID_DATA, "%s/byteOffset: not aligned to the component size %u", vp,
                        a->comp_size);
        size_t ibytes, vbytes;
        if (!sk_size_mul((size_t)sc, isz, &ibytes) || !sk_size_mul((size_t)sc - 1u, a->elem_size, &vbytes) ||
            !sk_size_add(vbytes, a->last_size, &vbytes))
            return fail(g, SK_ERR_INVALID_DATA, "%s/count: too large", sp_path);
        char what[64];
        snprintf(what, sizeof what, "%llu indices", (unsigned long long)sc);
        TRY(view_range(g, iv, (size_t)ioff, ibytes, ip, what, &a->sparse_idx));
        snprintf(what, sizeof what, "%llu values", (unsigned long long)sc);
        TRY(view_range(g, vv, (size_t)voff, vbytes, vp, what, &a->sparse_val));
        a->sparse_count = (uint32_t)sc;
        a->sparse_idx_type = (uint32_t)ict;
        TRY(sk_gl_stream_ensure(g, a->sparse_idx, ibytes));
        TRY(sk_gl_stream_ensure(g, a->sparse_val, vbytes));
        if (!a->sparse_idx) a->missing_buffer = (int32_t)g->views[iv].buffer;
        if (!a->sparse_val) a->missing_buffer = (int32_t)g->views[vv].buffer;
        /* Indices strictly increasing and inside the accessor. */
        uint32_t prev = 0;
        for (uint32_t k = 0; a->sparse_idx && k < a->sparse_count; k++) {
            uint32_t idx = read_index(a->sparse_idx + (size_t)k * isz, a->sparse_idx_type);
            if (idx >= a->count)
                return fail(g, SK_ERR_INVALID_DATA, "%s: index %u (entry %u) is not below the accessor count %u", ip,
                            idx, k, a->count);
            if (k > 0 && idx <= prev)
                return fail(g, SK_ERR_INVALID_DATA, "%s: indices are not strictly increasing at entry %u (%u after %u)",
                            ip, k, idx, prev);
            prev = idx;
        }
    }
    /* §3.6.2.2: float components are finite (checked for every accessor
     * whose data is available, as the validator does). */
    bool packed = a->comp_type == GL_FLOAT && a->data && (a->cols == 1 || a->col_stride == a->rows * 4u) &&
                  a->stride == (size_t)a->ncomp * 4u;
    /* Packed floats are checked when first read (sk_gl_acc_available), by an
     * animation channel's own pass over its keys, or at the end of the load
     * (sk_gl_acc_check_pending): one pass over the words fewer for keys. */
    a->finite_pending = packed;
    if (a->comp_type == GL_FLOAT && a->data && !packed && a->count)
        TRY(sk_gl_stream_ensure(g, a->data, acc_span(a)));
    if (a->comp_type == GL_FLOAT) {
        for (uint32_t i = 0; a->data && !packed && i < a->count; i++)
            for (uint32_t c = 0; c < a->ncomp; c++) {
                const uint8_t *p = a->data + (size_t)i * a->stride + (c / a->rows) * a->col_stride + (c % a->rows) * 4u;
                if ((rd_u32(p) & 0x7f800000u) == 0x7f800000u) /* exponent all ones: Inf or NaN */
                    return fail(g, SK_ERR_INVALID_DATA, "%s: element %u component %u is not finite", path, i, c);
            }
        for (uint32_t k = 0; a->sparse_val && k < a->sparse_count; k++)
            for (uint32_t c = 0; c < a->ncomp; c++) {
                const uint8_t *p = a->sparse_val + (size_t)k * a->elem_size + (c / a->rows) * a->col_stride + (c % a->rows) * 4u;
                if (!isfinite(read_comp(p, GL_FLOAT, false)))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/sparse/values: element %u component %u is not finite", path,
                                k, c);
            }
    }
    return SK_OK;
}

sk_result sk_gl_load_accessors(gl_ctx *g) {
    g->accs = tmp_alloc(g, g->n_accessors ? g->n_accessors : 1, sizeof *g->accs);
    if (!g->accs) return oom(g);
    for (uint32_t i = 0; i < g->n_accessors; i++) TRY(load_accessor(g, i));
    return SK_OK;
}

static void budget_init(gl_ctx *g) {
    if (!g->max_decoded) { /* first use: the buffers are loaded, their sizes known */
        uint64_t in = g->input_bytes;
        for (uint32_t i = 0; i < g->n_buffers; i++)
            if (g->buffers[i].data) in += g->buffers[i].length;
        uint64_t cap = g->max_bytes * GL_DECODE_BUDGET_FACTOR;
        uint64_t def = in > (cap - GL_DECODE_BASE) / GL_DECODE_INPUT_FACTOR ? cap : GL_DECODE_BASE + in * GL_DECODE_INPUT_FACTOR;
        g->max_decoded = def < cap ? def : cap;
    }
}

static sk_result acc_budget(gl_ctx *g, uint32_t index, const char *user_path) {
    const gl_acc *a = &g->accs[index];
    budget_init(g);
    uint64_t bytes = (uint64_t)a->count * a->ncomp * 4u;
    if (bytes > g->max_decoded - g->decoded)
        return fail(g, SK_ERR_LIMIT,
                    "%s: decoding accessor %u (%llu bytes%s) would pass the decoded-data limit of %llu bytes "
                    "(sk_gltf_options.max_decoded_bytes)",
                    user_path, index, (unsigned long long)bytes, a->view < 0 ? ", zero-filled: it has no bufferView" : "",
                    (unsigned long long)g->max_decoded);
    g->decoded += bytes;
    return SK_OK;
}

sk_result sk_gl_budget(gl_ctx *g, uint64_t bytes, const char *user_path, const char *what) {
    budget_init(g);
    if (bytes > g->max_decoded - g->decoded)
        return fail(g, SK_ERR_LIMIT,
                    "%s: %s (%llu bytes) would pass the decoded-data limit of %llu bytes (sk_gltf_options.max_decoded_bytes)",
                    user_path, what, (unsigned long long)bytes, (unsigned long long)g->max_decoded);
    g->decoded += bytes;
    return SK_OK;
}

/* The bytes an accessor reads (its elements and sparse data) in memory:
 * a streamed .glb reads any part not read yet (gltf_stream.c). */
static sk_result acc_ensure(gl_ctx *g, const gl_acc *a) {
    if (!g->n_lazy) return SK_OK;
    if (a->data && a->count) TRY(sk_gl_stream_ensure(g, a->data, acc_span(a)));
    if (a->sparse_count) {
        TRY(sk_gl_stream_ensure(g, a->sparse_idx, (size_t)a->sparse_count * comp_size(a->sparse_idx_type)));
        TRY(sk_gl_stream_ensure(g, a->sparse_val, (size_t)(a->sparse_count - 1u) * a->elem_size + a->last_size));
    }
    return SK_OK;
}

/* Data of an accessor we are about to read must exist. */
sk_result sk_gl_acc_finite(gl_ctx *g, uint32_t index) {
    gl_acc *a = &g->accs[index];
    if (!a->finite_pending) return SK_OK;
    TRY(acc_ensure(g, a));
    /* Packed floats: one tight pass over the words (exponent all ones = Inf/NaN). */
    size_t words = (size_t)a->count * a->ncomp;
    if (!floats_finite(a->data, words))
        for (size_t i = 0; i < words; i++)
            if ((rd_u32(a->data + i * 4u) & 0x7f800000u) == 0x7f800000u) {
                char path[64];
                gl_path(path, sizeof path, "/accessors/", index, NULL);
                return fail(g, SK_ERR_INVALID_DATA, "%s: element %zu component %zu is not finite", path, i / a->ncomp,
                            i % a->ncomp);
            }
    a->finite_pending = false;
    return SK_OK;
}

sk_result sk_gl_acc_check_pending(gl_ctx *g) {
    for (uint32_t i = 0; i < g->n_accessors; i++) TRY(sk_gl_acc_finite(g, i));
    return SK_OK;
}

static sk_result acc_present(gl_ctx *g, uint32_t index, const char *user_path) {
    const gl_acc *a = &g->accs[index];
    if (a->missing_buffer < 0) return SK_OK;
    const gl_buffer *b = &g->buffers[a->missing_buffer];
    return fail(g, b->unavailable_code, "%s: accessor %u needs buffer %d, which has no data: %s", user_path, index,
                a->missing_buffer, b->unavailable ? b->unavailable : "?");
}

static void decode_element(const gl_acc *a, const uint8_t *base, double *out) {
    uint32_t k = 0;
    for (uint32_t c = 0; c < a->cols; c++)
        for (uint32_t r = 0; r < a->rows; r++)
            out[k++] = read_comp(base + c * a->col_stride + (size_t)r * a->comp_size, a->comp_type, a->normalized);
}

sk_result sk_gl_acc_available(gl_ctx *g, uint32_t index, const char *user_path) {
    TRY(acc_present(g, index, user_path));
    TRY(acc_ensure(g, &g->accs[index]));
    return sk_gl_acc_finite(g, index);
}

/* Decodes an accessor into floats (count * ncomp, matrices column-major
 * without padding) in the given arena; rejects non-finite floats. */
sk_result sk_gl_acc_read_float(gl_ctx *g, uint32_t index, sk_arena *arena, const char *user_path,
                                float **out) {
    const gl_acc *a = &g->accs[index];
    TRY(sk_gl_acc_available(g, index, user_path));
    TRY(acc_budget(g, index, user_path));
    size_t n;
    if (!sk_size_mul(a->count, a->ncomp, &n)) return oom(g);
    float *f;
    size_t bytes;
    /* Without a bufferView the values start as zeros (then sparse); otherwise every float is written. */
    if (!sk_size_mul(n, sizeof(float), &bytes) ||
        !(f = a->data ? sk_arena_alloc_raw(arena, bytes) : sk_arena_alloc(arena, bytes)))
        return oom(g);
    double e[16];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Fast path: little-endian floats with no column padding are copied as they are. */
    bool packed_float = a->comp_type == GL_FLOAT && (a->cols == 1 || a->col_stride == a->rows * 4u);
    if (a->data && packed_float) {
        size_t elem = (size_t)a->ncomp * sizeof(float);
        if (a->stride == elem) memcpy(f, a->data, bytes);
        else
            for (uint32_t i = 0; i < a->count; i++) memcpy(f + (size_t)i * a->ncomp, a->data + (size_t)i * a->stride, elem);
    } else
#endif
    if (a->data)
        for (uint32_t i = 0; i < a->count; i++) {
            decode_element(a, a->data + (size_t)i * a->stride, e);
            for (uint32_t c = 0; c < a->ncomp; c++) f[(size_t)i * a->ncomp + c] = (float)e[c];
        }
    if (a->sparse_count) {
        uint32_t isz = comp_size(a->sparse_idx_type);
        for (uint32_t k = 0; k < a->sparse_count; k++) {
            uint32_t idx = read_index(a->sparse_idx + (size_t)k * isz, a->sparse_idx_type);
            decode_element(a, a->sparse_val + (size_t)k * a->elem_size, e);
            for (uint32_t c = 0; c < a->ncomp; c++) f[(size_t)idx * a->ncomp + c] = (float)e[c];
        }
    }
    /* Float data was checked for non-finite values (sk_gl_acc_available, or when the accessor was loaded). */
    *out = f;
    return SK_OK;
}

/* Whether an accessor's floats can be read where they lie in the buffer
 * (little-endian float, tightly packed, no sparse values, 4-byte aligned);
 * sk_gl_acc_float_view then points at them (valid while the reader runs),
 * with the same checks and decoding budget as sk_gl_acc_read_float. */
bool sk_gl_acc_viewable(const gl_ctx *g, uint32_t index) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const gl_acc *a = &g->accs[index];
    return a->comp_type == GL_FLOAT && a->data && !a->sparse_count && a->cols == 1 && a->missing_buffer < 0 &&
           !a->unknown && a->stride == (size_t)a->ncomp * sizeof(float) && (uintptr_t)a->data % sizeof(float) == 0;
#else
    (void)g, (void)index;
    return false;
#endif
}

sk_result sk_gl_acc_float_view(gl_ctx *g, uint32_t index, const char *user_path, const float **out) {
    TRY(sk_gl_acc_available(g, index, user_path));
    TRY(acc_budget(g, index, user_path));
    *out = (const float *)(const void *)g->accs[index].data;
    return SK_OK;
}

sk_result sk_gl_acc_float_view_unchecked(gl_ctx *g, uint32_t index, const char *user_path, const float **out,
                                         bool *pending) {
    TRY(acc_present(g, index, user_path));
    TRY(acc_ensure(g, &g->accs[index]));
    TRY(acc_budget(g, index, user_path));
    *out = (const float *)(const void *)g->accs[index].data;
    *pending = g->accs[index].finite_pending;
    return SK_OK;
}

sk_result sk_gl_acc_float_view_lazy(gl_ctx *g, uint32_t index, const char *user_path, const float **out,
                                    bool *pending, bool *lazy) {
    const gl_acc *a = &g->accs[index];
    TRY(acc_present(g, index, user_path));
    TRY(acc_budget(g, index, user_path));
    *out = (const float *)(const void *)a->data;
    *pending = a->finite_pending;
    *lazy = a->data && a->count && sk_gl_stream_pending(g, a->data, acc_span(a));
    return SK_OK;
}

sk_result sk_gl_acc_read_float_shared(gl_ctx *g, uint32_t index, const char *user_path, const float **out) {
    gl_acc *a = &g->accs[index];
    if (!a->shared) {
        float *f;
        TRY(sk_gl_acc_read_float(g, index, asset_arena(g), user_path, &f));
        a->shared = f;
    }
    *out = a->shared;
    return SK_OK;
}

/* Integer accessor (indices, joints) into uint32 values. */
sk_result sk_gl_acc_read_uint(gl_ctx *g, uint32_t index, sk_arena *arena, const char *user_path, uint32_t **out) {
    const gl_acc *a = &g->accs[index];
    TRY(sk_gl_acc_available(g, index, user_path));
    TRY(acc_budget(g, index, user_path));
    size_t n, bytes;
    uint32_t *u;
    /* without a bufferView the values start as zeros (then sparse); otherwise every one is written */
    if (!sk_size_mul(a->count, a->ncomp, &n) || !sk_size_mul(n, sizeof(uint32_t), &bytes) ||
        !(u = a->data ? sk_arena_alloc_raw(arena, bytes) : sk_arena_alloc(arena, bytes)))
        return oom(g);
    if (a->data && a->stride == (size_t)a->ncomp * a->comp_size) {
        /* Tightly packed (index buffers, most joint attributes): one loop per
         * component type over all n values, which compilers vectorise. */
        const uint8_t *d = a->data;
        if (a->comp_type == GL_UNSIGNED_BYTE)
            for (size_t i = 0; i < n; i++) u[i] = d[i];
        else if (a->comp_type == GL_UNSIGNED_SHORT)
            for (size_t i = 0; i < n; i++) u[i] = rd_u16(d + 2 * i);
        else
            for (size_t i = 0; i < n; i++) u[i] = rd_u32(d + 4 * i);
    } else if (a->data)
        for (uint32_t i = 0; i < a->count; i++)
            for (uint32_t c = 0; c < a->ncomp; c++)
                u[(size_t)i * a->ncomp + c] =
                    read_index(a->data + (size_t)i * a->stride + (size_t)c * a->comp_size, a->comp_type);
    if (a->sparse_count) {
        uint32_t isz = comp_size(a->sparse_idx_type);
        for (uint32_t k = 0; k < a->sparse_count; k++) {
            uint32_t idx = read_index(a->sparse_idx + (size_t)k * isz, a->sparse_idx_type);
            for (uint32_t c = 0; c < a->ncomp; c++)
                u[(size_t)idx * a->ncomp + c] =
                    read_index(a->sparse_val + (size_t)k * a->elem_size + (size_t)c * a->comp_size, a->comp_type);
        }
    }
    *out = u;
    return SK_OK;
}


static unsigned combo_bit(const gl_acc *a) {
    switch (a->comp_type) {
    case GL_BYTE: return a->normalized ? CB_BN : CB_B;
    case GL_UNSIGNED_BYTE: return a->normalized ? CB_UBN : CB_UB;
    case GL_SHORT: return a->normalized ? CB_SN : CB_S;
    case GL_UNSIGNED_SHORT: return a->normalized ? CB_USN : CB_US;
    case GL_UNSIGNED_INT: return CB_UI;
    default: return CB_F;
    }
}

static const char *comp_name(const gl_acc *a) {
    switch (a->comp_type) {
    case GL_BYTE: return a->normalized ? "normalized BYTE" : "BYTE";
    case GL_UNSIGNED_BYTE: return a->normalized ? "normalized UNSIGNED_BYTE" : "UNSIGNED_BYTE";
    case GL_SHORT: return a->normalized ? "normalized SHORT" : "SHORT";
    case GL_UNSIGNED_SHORT: return a->normalized ? "normalized UNSIGNED_SHORT" : "UNSIGNED_SHORT";
    case GL_UNSIGNED_INT: return "UNSIGNED_INT";
    default: return "FLOAT";
    }
}

/* Checks an accessor reference (a JSON index property) against the expected
 * type and allowed component types; returns its index. */
sk_result sk_gl_acc_ref(gl_ctx *g, const sk_jv *it, const char *path, const char *type, unsigned allowed,
                         uint32_t *out) {
    if (!j_is_uint(it, 4294967296.0))
        return fail(g, SK_ERR_INVALID_DATA, "%s: expected an accessor index", path);
    if (it->valuedouble >= g->n_accessors)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor index %.0f out of range (%u accessors)", path,
                    it->valuedouble, g->n_accessors);
    uint32_t i = (uint32_t)it->valuedouble;
    const gl_acc *a = &g->accs[i];
    if (a->unknown) return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u cannot be read: %s", path, i, a->unknown);
    if (type && strcmp(a->type, type) != 0)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u has type %s, expected %s", path, i, a->type, type);
    if (!(combo_bit(a) & allowed))
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u component type %s is not allowed here", path, i,
                    comp_name(a));
    *out = i;
    return SK_OK;
}

