/* skelanim — glTF 2.0 reader: .glb containers, .gltf with external or data:
 * buffers, accessors (every component type, normalisation, byteStride,
 * sparse, matrix column padding), nodes, meshes, skins, scenes, animations.
 *
 * Everything the reader follows (indices, offsets, counts) is validated before
 * use; errors name the JSON path ("/accessors/3/count: ..."). Section numbers
 * in comments refer to the glTF 2.0 specification (Khronos, 2.0.1). */
#include "core/internal.h"
#include "skelanim/io/gltf.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* glTF component types (§3.6.2.2 "Accessor Data Types"). */
#define GL_BYTE 5120u
#define GL_UNSIGNED_BYTE 5121u
#define GL_SHORT 5122u
#define GL_UNSIGNED_SHORT 5123u
#define GL_UNSIGNED_INT 5125u
#define GL_FLOAT 5126u

#define GL_DEFAULT_MAX_BYTES ((uint64_t)1 << 30)
/* Byte offsets/lengths: exact in a JSON double and representable in size_t. */
#define GL_MAX_OFFSET ((double)(SIZE_MAX < 9007199254740991ull ? SIZE_MAX : 9007199254740991ull))

typedef struct gl_buffer {
    const uint8_t *data;     /* NULL when unavailable */
    size_t length;           /* declared byteLength */
    const char *unavailable; /* why data is NULL (reported only if read) */
    sk_result unavailable_code;
} gl_buffer;

typedef struct gl_view {
    uint32_t buffer;
    size_t offset, length;
    uint32_t stride; /* 0 = not defined */
} gl_view;

typedef struct gl_acc {
    int32_t view;          /* -1: no bufferView (zeros) */
    size_t byte_offset;    /* accessor.byteOffset (inside the view) */
    const uint8_t *data;   /* first element, or NULL */
    size_t stride;         /* effective stride */
    uint32_t count, comp_type, comp_size, ncomp, rows, cols;
    size_t col_stride, elem_size, last_size; /* last_size: without trailing column padding */
    bool normalized, has_bounds, is_matrix;
    const char *type;
    uint32_t sparse_count;
    uint32_t sparse_idx_type;
    const uint8_t *sparse_idx, *sparse_val;
    int32_t missing_buffer; /* a buffer we need is unavailable, or -1 */
} gl_acc;

typedef struct gl_node {
    int32_t parent, mesh, skin;
    bool has_matrix, matrix_identity;
    sk_transform rest;
    const cJSON *weights; /* node.weights or NULL */
} gl_node;

typedef struct gl_ctx {
    sk_arena tmp; /* scratch, released at the end */
    sk_arena chan; /* per animation channel, reset after each (keeps its memory hot) */
    const sk_allocator *alloc;
    sk_error *err;
    const char *base_dir;
    uint64_t max_bytes;
    const uint8_t *bin;
    size_t bin_size;
    bool has_bin, is_glb, quantization;
    cJSON *root;
    const cJSON **j_buffers, **j_views, **j_accessors, **j_nodes, **j_meshes, **j_skins,
        **j_anims, **j_scenes, **j_materials;
    uint32_t n_buffers, n_views, n_accessors, n_nodes, n_meshes, n_skins, n_anims, n_scenes,
        n_materials, n_cameras;
    gl_buffer *buffers;
    gl_view *views;
    gl_acc *accs;
    gl_node *nodes;
    uint32_t *subtree; /* per joint: joints in its subtree (itself included) */
    uint32_t *root_joint; /* per joint: its root joint */
    uint64_t decoded;  /* bytes decoded from accessors so far (bounded) */
    sk_asset *asset;
} gl_ctx;

/* Decoding the same large accessor again and again (many primitives or
 * channels referring to it) must not exhaust memory: the total decoded is
 * limited to a multiple of the file size limit. */
#define GL_DECODE_BUDGET_FACTOR 8u

#if defined(__GNUC__)
#define GL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GL_PRINTF(a, b)
#endif

static sk_result fail(gl_ctx *g, sk_result code, const char *fmt, ...) GL_PRINTF(3, 4);
static sk_result fail(gl_ctx *g, sk_result code, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return sk_error_set(g->err, code, "%s", buf);
}

#define TRY(expr)                        \
    do {                                 \
        sk_result try_r_ = (expr);       \
        if (try_r_ != SK_OK) return try_r_; \
    } while (0)

static void *tmp_alloc(gl_ctx *g, size_t n, size_t size) {
    size_t total;
    if (!sk_size_mul(n, size, &total)) return NULL;
    return sk_arena_alloc(&g->tmp, total);
}

static sk_result oom(gl_ctx *g) { return fail(g, SK_ERR_OUT_OF_MEMORY, "out of memory"); }

/* ---- JSON helpers ------------------------------------------------------- */

static const cJSON *j_get(const cJSON *obj, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static bool j_is_uint(const cJSON *it, double limit) {
    if (!cJSON_IsNumber(it)) return false;
    double d = it->valuedouble;
    return d >= 0.0 && d < limit && d == floor(d);
}

/* Collects a top-level array of objects into a flat table (cJSON arrays are
 * linked lists: indexing them one by one would be quadratic). */
static sk_result j_collection(gl_ctx *g, const char *key, const cJSON ***out, uint32_t *count) {
    *out = NULL;
    *count = 0;
    const cJSON *arr = j_get(g->root, key);
    if (!arr) return SK_OK;
    if (!cJSON_IsArray(arr)) return fail(g, SK_ERR_INVALID_DATA, "/%s: expected an array", key);
    size_t n = 0;
    for (const cJSON *c = arr->child; c; c = c->next) {
        if (!cJSON_IsObject(c))
            return fail(g, SK_ERR_INVALID_DATA, "/%s/%zu: expected an object", key, n);
        n++;
    }
    if (n > SK_MAX_JOINTS * 16ull)
        return fail(g, SK_ERR_LIMIT, "/%s: %zu entries is more than this reader accepts", key, n);
    const cJSON **t = tmp_alloc(g, n ? n : 1, sizeof *t);
    if (!t) return oom(g);
    n = 0;
    for (const cJSON *c = arr->child; c; c = c->next) t[n++] = c;
    *out = t;
    *count = (uint32_t)n;
    return SK_OK;
}

/* Optional index property: -1 when absent. */
static sk_result j_opt_index(gl_ctx *g, const cJSON *obj, const char *key, uint32_t limit,
                             const char *what, const char *path, int32_t *out) {
    *out = -1;
    const cJSON *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!j_is_uint(it, 4294967296.0))
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected a non-negative integer index", path, key);
    if (it->valuedouble >= (double)limit)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: %s index %.0f out of range (%u %s)", path, key,
                    what, it->valuedouble, limit, what);
    *out = (int32_t)it->valuedouble;
    return SK_OK;
}

static sk_result j_req_index(gl_ctx *g, const cJSON *obj, const char *key, uint32_t limit,
                             const char *what, const char *path, uint32_t *out) {
    int32_t v;
    TRY(j_opt_index(g, obj, key, limit, what, path, &v));
    if (v < 0) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: required property missing", path, key);
    *out = (uint32_t)v;
    return SK_OK;
}

/* Optional non-negative integer with a default and an upper bound. */
static sk_result j_opt_uint(gl_ctx *g, const cJSON *obj, const char *key, const char *path,
                            uint64_t def, double max, uint64_t *out, bool *present) {
    *out = def;
    if (present) *present = false;
    const cJSON *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!j_is_uint(it, 18446744073709551616.0))
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected a non-negative integer", path, key);
    if (it->valuedouble > max)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: %.0f is larger than %.0f", path, key, it->valuedouble, max);
    *out = (uint64_t)it->valuedouble;
    if (present) *present = true;
    return SK_OK;
}

static sk_result j_req_uint(gl_ctx *g, const cJSON *obj, const char *key, const char *path,
                            double max, uint64_t *out) {
    bool present;
    TRY(j_opt_uint(g, obj, key, path, 0, max, out, &present));
    if (!present) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: required property missing", path, key);
    return SK_OK;
}

static sk_result j_opt_string(gl_ctx *g, const cJSON *obj, const char *key, const char *path,
                              const char **out) {
    *out = NULL;
    const cJSON *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!cJSON_IsString(it) || !it->valuestring)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected a string", path, key);
    *out = it->valuestring;
    return SK_OK;
}

/* Fixed-length array of finite numbers; *present false when absent. */
static sk_result j_opt_numbers(gl_ctx *g, const cJSON *obj, const char *key, const char *path,
                               uint32_t n, double *out, bool *present) {
    *present = false;
    const cJSON *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!cJSON_IsArray(it)) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected an array", path, key);
    uint32_t i = 0;
    for (const cJSON *c = it->child; c; c = c->next, i++) {
        if (i >= n) break;
        if (!cJSON_IsNumber(c))
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s/%u: expected a number", path, key, i);
        if (!isfinite(c->valuedouble))
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s/%u: value is not finite", path, key, i);
        out[i] = c->valuedouble;
    }
    if (i != n || cJSON_GetArraySize(it) != (int)n)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected %u numbers", path, key, n);
    *present = true;
    return SK_OK;
}

/* Array length of an optional array property (type-checked); 0 when absent. */
static sk_result j_array_len(gl_ctx *g, const cJSON *obj, const char *key, const char *path,
                             const cJSON **arr, uint32_t *len) {
    *arr = j_get(obj, key);
    *len = 0;
    if (!*arr) return SK_OK;
    if (!cJSON_IsArray(*arr)) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected an array", path, key);
    uint32_t n = 0;
    for (const cJSON *c = (*arr)->child; c; c = c->next) {
        if (n == UINT32_MAX) return fail(g, SK_ERR_LIMIT, "%s/%s: too many entries", path, key);
        n++;
    }
    *len = n;
    return SK_OK;
}

/* ---- asset / extensions (§3.2 Asset, §3.12 Specifying Extensions) -------- */

/* Required extensions we can honour: they do not change geometry or animation
 * meaning for a skeletal loader (materials, textures, lights, metadata), or we
 * implement them (KHR_mesh_quantization). Anything else that is *required*
 * (KHR_draco_mesh_compression, EXT_meshopt_compression, KHR_animation_pointer,
 * unknown ones) is refused with SK_ERR_UNSUPPORTED. */
static bool extension_supported(const char *name) {
    static const char *const exact[] = {
        "KHR_mesh_quantization", "KHR_texture_transform", "KHR_texture_basisu",
        "EXT_texture_webp", "EXT_texture_avif", "KHR_lights_punctual", "KHR_xmp_json_ld",
        "KHR_node_visibility", "KHR_materials_variants", "EXT_lights_image_based",
    };
    for (size_t i = 0; i < SK_ARRAY_COUNT(exact); i++)
        if (strcmp(name, exact[i]) == 0) return true;
    if (strncmp(name, "KHR_materials_", 14) == 0) return true;
    return false;
}

static sk_result check_asset(gl_ctx *g) {
    const cJSON *asset = j_get(g->root, "asset");
    if (!cJSON_IsObject(asset)) return fail(g, SK_ERR_INVALID_DATA, "/asset: required object missing");
    const char *version, *minv;
    TRY(j_opt_string(g, asset, "version", "/asset", &version));
    TRY(j_opt_string(g, asset, "minVersion", "/asset", &minv));
    if (!version) return fail(g, SK_ERR_INVALID_DATA, "/asset/version: required property missing");
    unsigned major = 0, minor = 0;
    if (sscanf(version, "%u.%u", &major, &minor) != 2)
        return fail(g, SK_ERR_INVALID_DATA, "/asset/version: \"%s\" is not MAJOR.MINOR", version);
    if (major != 2) return fail(g, SK_ERR_UNSUPPORTED, "/asset/version: glTF %s is not supported (only 2.x)", version);
    if (minv) {
        unsigned mj = 0, mn = 0;
        if (sscanf(minv, "%u.%u", &mj, &mn) != 2)
            return fail(g, SK_ERR_INVALID_DATA, "/asset/minVersion: \"%s\" is not MAJOR.MINOR", minv);
        if (mj > major || (mj == major && mn > minor))
            return fail(g, SK_ERR_INVALID_DATA, "/asset/minVersion: %s is greater than version %s", minv, version);
        if (mj != 2 || mn > 0)
            return fail(g, SK_ERR_UNSUPPORTED, "/asset/minVersion: glTF %s features are not supported", minv);
    }
    const char *gen;
    TRY(j_opt_string(g, asset, "generator", "/asset", &gen));
    g->asset->generator = sk_asset_strdup(g->asset, gen);
    if (!g->asset->generator) return oom(g);

    const cJSON *used = j_get(g->root, "extensionsUsed"), *req = j_get(g->root, "extensionsRequired");
    if (used && !cJSON_IsArray(used)) return fail(g, SK_ERR_INVALID_DATA, "/extensionsUsed: expected an array");
    if (req && !cJSON_IsArray(req)) return fail(g, SK_ERR_INVALID_DATA, "/extensionsRequired: expected an array");
    if (req) {
        uint32_t i = 0;
        for (const cJSON *c = req->child; c; c = c->next, i++) {
            if (!cJSON_IsString(c) || !c->valuestring)
                return fail(g, SK_ERR_INVALID_DATA, "/extensionsRequired/%u: expected a string", i);
            if (!extension_supported(c->valuestring))
                return fail(g, SK_ERR_UNSUPPORTED, "/extensionsRequired/%u: required extension %s is not supported",
                            i, c->valuestring);
            if (strcmp(c->valuestring, "KHR_mesh_quantization") == 0) g->quantization = true;
        }
    }
    return SK_OK;
}

/* ---- URIs and buffers (§3.6.1 Buffers and Buffer Views, §2.8 URIs) ------- */

static int b64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Strict RFC 4648 base64: the standard alphabet, '=' only as final padding. */
static sk_result base64_decode(gl_ctx *g, const char *s, size_t n, const char *path, uint8_t **out,
                               size_t *out_len) {
    size_t pad = 0;
    while (n > 0 && s[n - 1] == '=' && pad < 2) { n--; pad++; }
    if (pad && (n + pad) % 4 != 0)
        return fail(g, SK_ERR_INVALID_DATA, "%s/uri: malformed base64 padding", path);
    if (n % 4 == 1) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: truncated base64 data", path);
    size_t len = n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0);
    if (len > g->max_bytes)
        return fail(g, SK_ERR_LIMIT, "%s/uri: %zu decoded bytes exceed the limit", path, len);
    uint8_t *o = sk_arena_alloc(&g->tmp, len ? len : 1);
    if (!o) return oom(g);
    uint32_t acc = 0;
    size_t bits = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0)
            return fail(g, SK_ERR_INVALID_DATA, "%s/uri: invalid base64 character 0x%02x at offset %zu", path,
                        (unsigned char)s[i], i);
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[k++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1u;
        }
    }
    *out = o;
    *out_len = k;
    return SK_OK;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Non-base64 data URI payload: URL-encoded octets (RFC 2397). */
static sk_result percent_decode_data(gl_ctx *g, const char *s, const char *path, uint8_t **out, size_t *out_len) {
    size_t n = strlen(s), k = 0;
    uint8_t *o = sk_arena_alloc(&g->tmp, n ? n : 1);
    if (!o) return oom(g);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            if (i + 2 >= n) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: truncated percent escape", path);
            int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
            if (hi < 0 || lo < 0) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: bad percent escape", path);
            o[k++] = (uint8_t)(hi * 16 + lo);
            i += 2;
        } else {
            o[k++] = (uint8_t)s[i];
        }
    }
    *out = o;
    *out_len = k;
    return SK_OK;
}

/* Relative file reference only: percent-decoded, no scheme, not absolute,
 * no ".." segment. */
static sk_result resolve_file_uri(gl_ctx *g, const char *uri, const char *path, char **out) {
    size_t n = strlen(uri);
    if (n == 0) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: empty URI", path);
    /* RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
    size_t i = 0;
    if ((uri[0] >= 'a' && uri[0] <= 'z') || (uri[0] >= 'A' && uri[0] <= 'Z')) {
        while (uri[i] && (isalnum((unsigned char)uri[i]) || uri[i] == '+' || uri[i] == '-' || uri[i] == '.')) i++;
        if (uri[i] == ':')
            return fail(g, SK_ERR_UNSUPPORTED,
                        "%s/uri: URI scheme \"%.*s:\" is not supported (only relative file paths and data: URIs)",
                        path, (int)(i < 32 ? i : 32), uri);
    }
    /* RFC 3986 §4.2: the first segment of a relative path has no ':'. */
    for (i = 0; uri[i] && uri[i] != '/'; i++)
        if (uri[i] == ':') return fail(g, SK_ERR_INVALID_DATA, "%s/uri: \"%s\" is not a valid URI", path, uri);
    char *d = sk_arena_alloc(&g->tmp, n + 1);
    if (!d) return oom(g);
    size_t k = 0;
    for (i = 0; i < n; i++) {
        if (uri[i] == '%') {
            if (i + 2 >= n) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: truncated percent escape", path);
            int a = hex_value(uri[i + 1]), b = hex_value(uri[i + 2]);
            if (a < 0 || b < 0) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: bad percent escape", path);
            char c = (char)(a * 16 + b);
            if (c == 0) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: %%00 in URI", path);
            d[k++] = c;
            i += 2;
        } else {
            d[k++] = uri[i];
        }
    }
    d[k] = 0;
    if (d[0] == '/' || d[0] == '\\')
        return fail(g, SK_ERR_INVALID_DATA, "%s/uri: absolute path \"%s\" refused", path, d);
    /* ".." as any segment (either separator) */
    const char *seg = d;
    for (const char *p = d;; p++) {
        if (*p == '/' || *p == '\\' || *p == 0) {
            if (p - seg == 2 && seg[0] == '.' && seg[1] == '.')
                return fail(g, SK_ERR_INVALID_DATA, "%s/uri: \"..\" in \"%s\" refused", path, d);
            if (*p == 0) break;
            seg = p + 1;
        }
    }
    if (!g->base_dir)
        return fail(g, SK_ERR_INVALID_DATA, "%s/uri: external file \"%s\" but no base directory given", path, d);
    size_t bl = strlen(g->base_dir), total;
    if (!sk_size_add(bl, k + 2, &total)) return oom(g);
    char *full = sk_arena_alloc(&g->tmp, total);
    if (!full) return oom(g);
    snprintf(full, total, "%s/%s", g->base_dir, d);
    *out = full;
    return SK_OK;
}

/* Reads exactly `need` bytes from the start of a file (fewer means the buffer
 * is shorter than its byteLength). */
static sk_result read_file_prefix(gl_ctx *g, const char *file, size_t need, const char *path,
                                  const uint8_t **out) {
    FILE *f = fopen(file, "rb");
    if (!f) return fail(g, SK_ERR_IO, "%s/uri: cannot open \"%s\"", path, file);
    uint8_t *d = sk_arena_alloc(&g->tmp, need ? need : 1);
    if (!d) {
        fclose(f);
        return oom(g);
    }
    size_t got = fread(d, 1, need, f);
    fclose(f);
    if (got != need)
        return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: %zu bytes declared but \"%s\" holds only %zu", path,
                    need, file, got);
    *out = d;
    return SK_OK;
}

/* Every buffer is checked up front: data: URIs are decoded, relative files
 * read (a missing or short file is an error), the GLB BIN chunk matched.
 * Buffers we cannot have — no uri in a .gltf, or a network URI we refuse to
 * fetch — are marked unavailable: an error only if an accessor we read needs
 * them (glTF-Validator likewise accepts such files). */
static sk_result load_buffers(gl_ctx *g) {
    g->buffers = tmp_alloc(g, g->n_buffers ? g->n_buffers : 1, sizeof *g->buffers);
    if (!g->buffers) return oom(g);
    char path[64];
    for (uint32_t i = 0; i < g->n_buffers; i++) {
        gl_buffer *b = &g->buffers[i];
        snprintf(path, sizeof path, "/buffers/%u", i);
        uint64_t len;
        TRY(j_req_uint(g, g->j_buffers[i], "byteLength", path, GL_MAX_OFFSET, &len));
        if (len < 1) return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: must be at least 1", path);
        if (len > g->max_bytes || len > SIZE_MAX)
            return fail(g, SK_ERR_LIMIT, "%s/byteLength: %llu bytes exceed the limit of %llu", path,
                        (unsigned long long)len, (unsigned long long)g->max_bytes);
        b->length = (size_t)len;
        const char *uri;
        TRY(j_opt_string(g, g->j_buffers[i], "uri", path, &uri));
        if (!uri) {
            /* §4.4.3.3 (GLB-stored buffer): the BIN chunk is buffer 0, which has no uri. */
            if (g->is_glb) {
                if (i != 0 || !g->has_bin)
                    return fail(g, SK_ERR_INVALID_DATA, "%s: buffer has no uri and there is no GLB BIN chunk for it", path);
                if (g->bin_size < b->length)
                    return fail(g, SK_ERR_INVALID_DATA,
                                "%s/byteLength: %zu bytes declared but the GLB BIN chunk holds %zu", path, b->length,
                                g->bin_size);
                b->data = g->bin;
            } else {
                b->unavailable = "it has no uri (and a .gltf file has no GLB BIN chunk)";
                b->unavailable_code = SK_ERR_INVALID_DATA;
            }
        } else if (strncmp(uri, "data:", 5) == 0) {
            /* data:[<mediatype>][;base64],<data> — §3.6.1.1 allows
             * application/octet-stream and application/gltf-buffer. */
            const char *comma = strchr(uri, ',');
            if (!comma) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: malformed data URI (no comma)", path);
            size_t hl = (size_t)(comma - uri - 5);
            const char *h = uri + 5;
            bool b64 = hl >= 7 && memcmp(h + hl - 7, ";base64", 7) == 0;
            size_t ml = b64 ? hl - 7 : hl;
            if (!((ml == 24 && memcmp(h, "application/octet-stream", 24) == 0) ||
                  (ml == 23 && memcmp(h, "application/gltf-buffer", 23) == 0)))
                return fail(g, SK_ERR_INVALID_DATA, "%s/uri: data URI media type \"%.*s\" is not a buffer type", path,
                            (int)(ml < 64 ? ml : 64), h);
            uint8_t *d = NULL;
            size_t dl = 0;
            if (b64) TRY(base64_decode(g, comma + 1, strlen(comma + 1), path, &d, &dl));
            else TRY(percent_decode_data(g, comma + 1, path, &d, &dl)); /* RFC 2397 plain data */
            if (dl < b->length)
                return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: %zu bytes declared but the data URI holds %zu",
                            path, b->length, dl);
            b->data = d;
        } else {
            char *file = NULL;
            sk_result r = resolve_file_uri(g, uri, path, &file);
            if (r == SK_ERR_UNSUPPORTED) {
                /* A network URI: never fetched; fatal only when read. */
                b->unavailable = "its URI scheme is not fetched (only relative file paths and data: URIs)";
                b->unavailable_code = SK_ERR_UNSUPPORTED;
                continue;
            }
            if (r != SK_OK) return r;
            TRY(read_file_prefix(g, file, b->length, path, &b->data));
        }
    }
    return SK_OK;
}

static sk_result load_views(gl_ctx *g) {
    g->views = tmp_alloc(g, g->n_views ? g->n_views : 1, sizeof *g->views);
    if (!g->views) return oom(g);
    char path[64];
    for (uint32_t i = 0; i < g->n_views; i++) {
        const cJSON *o = g->j_views[i];
        gl_view *v = &g->views[i];
        snprintf(path, sizeof path, "/bufferViews/%u", i);
        uint64_t off, len, stride;
        bool has_stride;
        TRY(j_req_index(g, o, "buffer", g->n_buffers, "buffer", path, &v->buffer));
        TRY(j_opt_uint(g, o, "byteOffset", path, 0, GL_MAX_OFFSET, &off, NULL));
        TRY(j_req_uint(g, o, "byteLength", path, GL_MAX_OFFSET, &len));
        if (len < 1) return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: must be at least 1", path);
        /* §3.6.1.2: byteStride in [4, 252] and a multiple of 4 (schema). */
        TRY(j_opt_uint(g, o, "byteStride", path, 0, 1e18, &stride, &has_stride));
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

static uint32_t rd_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
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

static sk_result load_accessor(gl_ctx *g, uint32_t index) {
    const cJSON *o = g->j_accessors[index];
    gl_acc *a = &g->accs[index];
    a->missing_buffer = -1;
    char path[64];
    snprintf(path, sizeof path, "/accessors/%u", index);
    uint64_t ct, count, off;
    bool has_off;
    TRY(j_req_uint(g, o, "componentType", path, 1e9, &ct));
    a->comp_type = (uint32_t)ct;
    a->comp_size = comp_size(a->comp_type);
    if (!a->comp_size)
        return fail(g, SK_ERR_INVALID_DATA, "%s/componentType: %llu is not a glTF component type", path,
                    (unsigned long long)ct);
    TRY(j_req_uint(g, o, "count", path, 4294967295.0, &count));
    if (count < 1) return fail(g, SK_ERR_INVALID_DATA, "%s/count: must be at least 1", path);
    a->count = (uint32_t)count;
    const cJSON *norm = j_get(o, "normalized");
    if (norm && !cJSON_IsBool(norm)) return fail(g, SK_ERR_INVALID_DATA, "%s/normalized: expected a boolean", path);
    a->normalized = cJSON_IsTrue(norm);
    if (a->normalized && (a->comp_type == GL_FLOAT || a->comp_type == GL_UNSIGNED_INT))
        return fail(g, SK_ERR_INVALID_DATA, "%s/normalized: not allowed for FLOAT or UNSIGNED_INT", path);
    const char *type;
    TRY(j_opt_string(g, o, "type", path, &type));
    if (!type) return fail(g, SK_ERR_INVALID_DATA, "%s/type: required property missing", path);
    static const struct { const char *name; uint32_t rows, cols; } types[] = {
        {"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1},
        {"MAT2", 2, 2}, {"MAT3", 3, 3}, {"MAT4", 4, 4},
    };
    a->rows = 0;
    for (size_t i = 0; i < SK_ARRAY_COUNT(types); i++)
        if (strcmp(type, types[i].name) == 0) {
            a->rows = types[i].rows;
            a->cols = types[i].cols;
            a->type = types[i].name;
        }
    if (!a->rows) return fail(g, SK_ERR_INVALID_DATA, "%s/type: \"%s\" is not an accessor type", path, type);
    a->ncomp = a->rows * a->cols;
    a->is_matrix = a->cols > 1;
    /* §3.6.2.4 "Data Alignment": matrix columns start on 4-byte boundaries,
     * so MAT2/MAT3 of bytes and MAT3 of shorts carry column padding. */
    a->col_stride = (size_t)a->rows * a->comp_size;
    if (a->is_matrix) a->col_stride = (a->col_stride + 3u) & ~(size_t)3u;
    a->elem_size = a->is_matrix ? a->col_stride * a->cols : a->col_stride;
    a->last_size = a->elem_size - a->col_stride + (size_t)a->rows * a->comp_size;
    a->has_bounds = j_get(o, "min") && j_get(o, "max");

    TRY(j_opt_index(g, o, "bufferView", g->n_views, "bufferView", path, &a->view));
    TRY(j_opt_uint(g, o, "byteOffset", path, 0, GL_MAX_OFFSET, &off, &has_off));
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
    const cJSON *sp = j_get(o, "sparse");
    if (sp) {
        char sp_path[96], ip[112], vp[112];
        snprintf(sp_path, sizeof sp_path, "%s/sparse", path);
        snprintf(ip, sizeof ip, "%s/indices", sp_path);
        snprintf(vp, sizeof vp, "%s/values", sp_path);
        if (!cJSON_IsObject(sp)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", sp_path);
        uint64_t sc, ict, ioff, voff;
        TRY(j_req_uint(g, sp, "count", sp_path, 4294967295.0, &sc));
        if (sc < 1 || sc > a->count)
            return fail(g, SK_ERR_INVALID_DATA, "%s/count: %llu is not in [1, %u] (the accessor count)", sp_path,
                        (unsigned long long)sc, a->count);
        const cJSON *ji = j_get(sp, "indices"), *jv = j_get(sp, "values");
        if (!cJSON_IsObject(ji)) return fail(g, SK_ERR_INVALID_DATA, "%s: required object missing", ip);
        if (!cJSON_IsObject(jv)) return fail(g, SK_ERR_INVALID_DATA, "%s: required object missing", vp);
        uint32_t iv, vv;
        TRY(j_req_index(g, ji, "bufferView", g->n_views, "bufferView", ip, &iv));
        TRY(j_opt_uint(g, ji, "byteOffset", ip, 0, GL_MAX_OFFSET, &ioff, NULL));
        TRY(j_req_uint(g, ji, "componentType", ip, 1e9, &ict));
        if (ict != GL_UNSIGNED_BYTE && ict != GL_UNSIGNED_SHORT && ict != GL_UNSIGNED_INT)
            return fail(g, SK_ERR_INVALID_DATA, "%s/componentType: %llu is not an unsigned integer type", ip,
                        (unsigned long long)ict);
        TRY(j_req_index(g, jv, "bufferView", g->n_views, "bufferView", vp, &vv));
        TRY(j_opt_uint(g, jv, "byteOffset", vp, 0, GL_MAX_OFFSET, &voff, NULL));
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
    if (packed) {
        /* Packed floats: one tight pass over the words (exponent all ones = Inf/NaN). */
        size_t words = (size_t)a->count * a->ncomp;
        uint32_t bad = 0;
        for (size_t i = 0; i < words; i++) {
            uint32_t u;
            memcpy(&u, a->data + i * 4u, 4);
            bad |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u);
        }
        if (bad)
            for (size_t i = 0; i < words; i++)
                if ((rd_u32(a->data + i * 4u) & 0x7f800000u) == 0x7f800000u)
                    return fail(g, SK_ERR_INVALID_DATA, "%s: element %zu component %zu is not finite", path,
                                i / a->ncomp, i % a->ncomp);
    }
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

static sk_result acc_budget(gl_ctx *g, uint32_t index, const char *user_path) {
    const gl_acc *a = &g->accs[index];
    g->decoded += (uint64_t)a->count * a->ncomp * 4u;
    if (g->decoded > g->max_bytes * GL_DECODE_BUDGET_FACTOR)
        return fail(g, SK_ERR_LIMIT, "%s: decoding accessor %u exceeds the total decoded-data limit (%llu bytes)",
                    user_path, index, (unsigned long long)(g->max_bytes * GL_DECODE_BUDGET_FACTOR));
    return SK_OK;
}

/* Data of an accessor we are about to read must exist. */
static sk_result acc_available(gl_ctx *g, uint32_t index, const char *user_path) {
    const gl_acc *a = &g->accs[index];
    if (a->missing_buffer < 0) return SK_OK;
    const gl_buffer *b = &g->buffers[a->missing_buffer];
    return fail(g, b->unavailable_code, "%s: accessor %u needs buffer %d, which is unavailable: %s", user_path, index,
                a->missing_buffer, b->unavailable ? b->unavailable : "?");
}

static void decode_element(const gl_acc *a, const uint8_t *base, double *out) {
    uint32_t k = 0;
    for (uint32_t c = 0; c < a->cols; c++)
        for (uint32_t r = 0; r < a->rows; r++)
            out[k++] = read_comp(base + c * a->col_stride + (size_t)r * a->comp_size, a->comp_type, a->normalized);
}

/* Decodes an accessor into floats (count * ncomp, matrices column-major
 * without padding) in the given arena; rejects non-finite floats. */
static sk_result acc_read_float(gl_ctx *g, uint32_t index, sk_arena *arena, const char *user_path,
                                float **out) {
    const gl_acc *a = &g->accs[index];
    TRY(acc_available(g, index, user_path));
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
    /* Float data was checked for non-finite values when the accessor was loaded. */
    *out = f;
    return SK_OK;
}

/* Integer accessor (indices, joints) into uint32 values. */
static sk_result acc_read_uint(gl_ctx *g, uint32_t index, sk_arena *arena, const char *user_path, uint32_t **out) {
    const gl_acc *a = &g->accs[index];
    TRY(acc_available(g, index, user_path));
    TRY(acc_budget(g, index, user_path));
    size_t n, bytes;
    uint32_t *u;
    if (!sk_size_mul(a->count, a->ncomp, &n) || !sk_size_mul(n, sizeof(uint32_t), &bytes) ||
        !(u = sk_arena_alloc(arena, bytes)))
        return oom(g);
    if (a->data)
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

/* Allowed (componentType, normalized) combinations as a bit mask. */
#define CB_B (1u << 0)
#define CB_BN (1u << 1)
#define CB_UB (1u << 2)
#define CB_UBN (1u << 3)
#define CB_S (1u << 4)
#define CB_SN (1u << 5)
#define CB_US (1u << 6)
#define CB_USN (1u << 7)
#define CB_UI (1u << 8)
#define CB_F (1u << 9)

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
static sk_result acc_ref(gl_ctx *g, const cJSON *it, const char *path, const char *type, unsigned allowed,
                         uint32_t *out) {
    if (!j_is_uint(it, 4294967296.0))
        return fail(g, SK_ERR_INVALID_DATA, "%s: expected an accessor index", path);
    if (it->valuedouble >= g->n_accessors)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor index %.0f out of range (%u accessors)", path,
                    it->valuedouble, g->n_accessors);
    uint32_t i = (uint32_t)it->valuedouble;
    const gl_acc *a = &g->accs[i];
    if (type && strcmp(a->type, type) != 0)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u has type %s, expected %s", path, i, a->type, type);
    if (!(combo_bit(a) & allowed))
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u component type %s is not allowed here", path, i,
                    comp_name(a));
    *out = i;
    return SK_OK;
}

/* ---- meshes (§3.7.2) ----------------------------------------------------- */

typedef struct attr_rule {
    const char *name, *type;
    unsigned core, quant;
} attr_rule;

static sk_arena *asset_arena(gl_ctx *g) { return &((sk_asset_internal *)g->asset->internal)->arena; }

/* Vertex attribute: accessor type/component checks, equal counts, and the
 * 4-byte alignment of §3.6.2.4 (accessor.byteOffset a multiple of 4; a
 * defined byteStride already is one). A tightly packed element whose size is
 * not a multiple of 4 is tolerated: it reads safely. */
static sk_result attr_accessor(gl_ctx *g, const cJSON *attrs, const attr_rule *rule, const char *path,
                               uint32_t *vcount, int32_t *out) {
    *out = -1;
    const cJSON *it = j_get(attrs, rule->name);
    if (!it) return SK_OK;
    char p[160];
    snprintf(p, sizeof p, "%s/%s", path, rule->name);
    uint32_t ai = 0;
    TRY(acc_ref(g, it, p, rule->type, g->quantization ? rule->quant : rule->core, &ai));
    const gl_acc *a = &g->accs[ai];
    if (*vcount == UINT32_MAX) *vcount = a->count;
    else if (a->count != *vcount)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u has %u elements, other attributes have %u", p, ai,
                    a->count, *vcount);
    if (a->view >= 0 && a->byte_offset % 4 != 0)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u byteOffset %zu is not a multiple of 4 (vertex attribute)",
                    p, ai, a->byte_offset);
    *out = (int32_t)ai;
    return SK_OK;
}

static sk_result read_attr_float(gl_ctx *g, int32_t ai, const char *path, const char *name, const float **out) {
    *out = NULL;
    if (ai < 0) return SK_OK;
    char p[160];
    snprintf(p, sizeof p, "%s/%s", path, name);
    float *f;
    TRY(acc_read_float(g, (uint32_t)ai, asset_arena(g), p, &f));
    *out = f;
    return SK_OK;
}

static const attr_rule R_POSITION = {"POSITION", "VEC3", CB_F, CB_F | 0xFFu};
static const attr_rule R_NORMAL = {"NORMAL", "VEC3", CB_F, CB_F | CB_BN | CB_SN};
static const attr_rule R_TANGENT = {"TANGENT", "VEC4", CB_F, CB_F | CB_BN | CB_SN};
static const attr_rule R_TEXCOORD = {"TEXCOORD_0", "VEC2", CB_F | CB_UBN | CB_USN, CB_F | 0xFFu};
static const attr_rule R_JOINTS[2] = {{"JOINTS_0", "VEC4", CB_UB | CB_US, CB_UB | CB_US},
                                      {"JOINTS_1", "VEC4", CB_UB | CB_US, CB_UB | CB_US}};
static const attr_rule R_WEIGHTS[2] = {{"WEIGHTS_0", "VEC4", CB_F | CB_UBN | CB_USN, CB_F | CB_UBN | CB_USN},
                                       {"WEIGHTS_1", "VEC4", CB_F | CB_UBN | CB_USN, CB_F | CB_UBN | CB_USN}};
static const attr_rule R_T_POSITION = {"POSITION", "VEC3", CB_F, CB_F | CB_B | CB_BN | CB_S | CB_SN};
static const attr_rule R_T_NORMAL = {"NORMAL", "VEC3", CB_F, CB_F | CB_BN | CB_SN};
static const attr_rule R_T_TANGENT = {"TANGENT", "VEC3", CB_F, CB_F | CB_BN | CB_SN};

static sk_result load_primitive(gl_ctx *g, const cJSON *o, const char *path, sk_primitive *prim) {
    const cJSON *attrs = j_get(o, "attributes");
    if (!cJSON_IsObject(attrs)) return fail(g, SK_ERR_INVALID_DATA, "%s/attributes: required object missing", path);
    char ap[128];
    snprintf(ap, sizeof ap, "%s/attributes", path);
    uint64_t mode;
    TRY(j_opt_uint(g, o, "mode", path, 4, 6, &mode, NULL));
    prim->mode = (uint32_t)mode;
    int32_t mat;
    TRY(j_opt_index(g, o, "material", g->n_materials, "material", path, &mat));
    prim->material = mat;
    prim->base_color[0] = prim->base_color[1] = prim->base_color[2] = prim->base_color[3] = 1.0f;
    if (mat >= 0) {
        const cJSON *pbr = j_get(g->j_materials[mat], "pbrMetallicRoughness");
        if (cJSON_IsObject(pbr)) {
            double c[4];
            bool present;
            char mp[96];
            snprintf(mp, sizeof mp, "/materials/%d/pbrMetallicRoughness", mat);
            TRY(j_opt_numbers(g, pbr, "baseColorFactor", mp, 4, c, &present));
            if (present)
                for (int i = 0; i < 4; i++) prim->base_color[i] = (float)c[i];
        }
    }
    /* Every attribute value must be an accessor index; attributes we do not
     * read still must not point outside the accessor array. */
    uint32_t vcount = UINT32_MAX;
    for (const cJSON *c = attrs->child; c; c = c->next) {
        if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_accessors)
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s: not a valid accessor index", ap, c->string ? c->string : "?");
        if (c->string && strncmp(c->string, "JOINTS_", 7) == 0 && strcmp(c->string, "JOINTS_0") != 0 &&
            strcmp(c->string, "JOINTS_1") != 0)
            return fail(g, SK_ERR_UNSUPPORTED, "%s/%s: more than 8 joint influences per vertex are not supported", ap,
                        c->string);
        /* §3.7.2.1: all attribute accessors of a primitive have the same count. */
        uint32_t cnt = g->accs[(uint32_t)c->valuedouble].count;
        if (vcount == UINT32_MAX) vcount = cnt;
        else if (cnt != vcount)
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s: accessor count %u differs from the other attributes (%u)", ap,
                        c->string ? c->string : "?", cnt, vcount);
    }
    int32_t pos, nrm, tan, uv, jnt[2], wgt[2];
    TRY(attr_accessor(g, attrs, &R_POSITION, ap, &vcount, &pos));
    TRY(attr_accessor(g, attrs, &R_NORMAL, ap, &vcount, &nrm));
    TRY(attr_accessor(g, attrs, &R_TANGENT, ap, &vcount, &tan));
    TRY(attr_accessor(g, attrs, &R_TEXCOORD, ap, &vcount, &uv));
    for (int s = 0; s < 2; s++) {
        TRY(attr_accessor(g, attrs, &R_JOINTS[s], ap, &vcount, &jnt[s]));
        TRY(attr_accessor(g, attrs, &R_WEIGHTS[s], ap, &vcount, &wgt[s]));
        if ((jnt[s] < 0) != (wgt[s] < 0))
            return fail(g, SK_ERR_INVALID_DATA, "%s: %s without %s", ap, jnt[s] < 0 ? R_WEIGHTS[s].name : R_JOINTS[s].name,
                        jnt[s] < 0 ? R_JOINTS[s].name : R_WEIGHTS[s].name);
    }
    if (jnt[1] >= 0 && jnt[0] < 0) return fail(g, SK_ERR_INVALID_DATA, "%s: JOINTS_1 without JOINTS_0", ap);
    if (vcount == UINT32_MAX) vcount = 0;
    prim->vertex_count = vcount;
    TRY(read_attr_float(g, pos, ap, "POSITION", &prim->positions));
    if (!prim->positions) {
        /* No POSITION (§3.7.2.1 allows it): zeros keep the array usable. */
        size_t bytes;
        if (!sk_size_mul(vcount, 3 * sizeof(float), &bytes) || !(prim->positions = sk_asset_alloc(g->asset, bytes)))
            return oom(g);
    }
    TRY(read_attr_float(g, nrm, ap, "NORMAL", &prim->normals));
    TRY(read_attr_float(g, tan, ap, "TANGENT", &prim->tangents));
    TRY(read_attr_float(g, uv, ap, "TEXCOORD_0", &prim->texcoords));
    if (jnt[0] >= 0) {
        uint32_t ic = jnt[1] >= 0 ? 8 : 4;
        prim->influence_count = ic;
        size_t n;
        if (!sk_size_mul(vcount, ic, &n)) return oom(g);
        uint16_t *joints = sk_asset_alloc(g->asset, n * sizeof(uint16_t));
        float *weights = sk_asset_alloc(g->asset, n * sizeof(float));
        if (!joints || !weights) return oom(g);
        for (uint32_t s = 0; s < ic / 4; s++) {
            uint32_t *ju;
            float *wf;
            char p[160];
            snprintf(p, sizeof p, "%s/%s", ap, R_JOINTS[s].name);
            TRY(acc_read_uint(g, (uint32_t)jnt[s], &g->tmp, p, &ju));
            snprintf(p, sizeof p, "%s/%s", ap, R_WEIGHTS[s].name);
            TRY(acc_read_float(g, (uint32_t)wgt[s], &g->tmp, p, &wf));
            for (uint32_t v = 0; v < vcount; v++)
                for (uint32_t k = 0; k < 4; k++) {
                    joints[(size_t)v * ic + s * 4 + k] = (uint16_t)ju[(size_t)v * 4 + k];
                    weights[(size_t)v * ic + s * 4 + k] = wf[(size_t)v * 4 + k];
                }
        }
        prim->joints = joints;
        prim->weights = weights;
    }
    /* Indices (§3.7.2.1): SCALAR unsigned, no byteStride, each < vertex count;
     * the maximum value of the type (primitive restart) is not allowed. */
    const cJSON *ji = j_get(o, "indices");
    if (ji) {
        char p[128];
        snprintf(p, sizeof p, "%s/indices", path);
        uint32_t ia;
        TRY(acc_ref(g, ji, p, "SCALAR", CB_UB | CB_US | CB_UI, &ia));
        const gl_acc *a = &g->accs[ia];
        if (a->view >= 0 && g->views[a->view].stride)
            return fail(g, SK_ERR_INVALID_DATA, "%s: bufferView %d of index accessor %u has a byteStride", p, a->view, ia);
        uint32_t *idx;
        TRY(acc_read_uint(g, ia, asset_arena(g), p, &idx));
        uint32_t restart = a->comp_type == GL_UNSIGNED_BYTE ? 0xFFu : a->comp_type == GL_UNSIGNED_SHORT ? 0xFFFFu : 0xFFFFFFFFu;
        for (uint32_t i = 0; i < a->count; i++) {
            if (idx[i] == restart)
                return fail(g, SK_ERR_INVALID_DATA, "%s: index %u is the primitive restart value %u", p, i, restart);
            if (idx[i] >= vcount)
                return fail(g, SK_ERR_INVALID_DATA, "%s: index %u is %u, not below the vertex count %u", p, i, idx[i],
                            vcount);
        }
        prim->indices = idx;
        prim->index_count = a->count;
    }
    /* Morph targets (§3.7.2.2). */
    const cJSON *targets;
    uint32_t tc;
    TRY(j_array_len(g, o, "targets", path, &targets, &tc));
    if (tc) {
        sk_morph_target *t = sk_asset_alloc(g->asset, (size_t)tc * sizeof *t);
        if (!t) return oom(g);
        uint32_t k = 0;
        for (const cJSON *c = targets->child; c; c = c->next, k++) {
            char tp[128];
            snprintf(tp, sizeof tp, "%s/targets/%u", path, k);
            if (!cJSON_IsObject(c)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", tp);
            for (const cJSON *x = c->child; x; x = x->next) {
                if (!j_is_uint(x, 4294967296.0) || x->valuedouble >= g->n_accessors)
                    return fail(g, SK_ERR_INVALID_DATA, "%s/%s: not a valid accessor index", tp, x->string ? x->string : "?");
                if (x->string && !j_get(attrs, x->string))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/%s: morph target attribute without a base attribute", tp,
                                x->string);
                if (g->accs[(uint32_t)x->valuedouble].count != vcount)
                    return fail(g, SK_ERR_INVALID_DATA, "%s/%s: accessor count %u differs from the vertex count %u", tp,
                                x->string ? x->string : "?", g->accs[(uint32_t)x->valuedouble].count, vcount);
            }
            int32_t tpos, tnrm, ttan;
            uint32_t vc = vcount;
            TRY(attr_accessor(g, c, &R_T_POSITION, tp, &vc, &tpos));
            TRY(attr_accessor(g, c, &R_T_NORMAL, tp, &vc, &tnrm));
            TRY(attr_accessor(g, c, &R_T_TANGENT, tp, &vc, &ttan));
            TRY(read_attr_float(g, tpos, tp, "POSITION", &t[k].positions));
            TRY(read_attr_float(g, tnrm, tp, "NORMAL", &t[k].normals));
            TRY(read_attr_float(g, ttan, tp, "TANGENT", &t[k].tangents));
        }
        prim->targets = t;
        prim->target_count = tc;
    }
    return SK_OK;
}

static sk_result load_meshes(gl_ctx *g) {
    sk_mesh *meshes = sk_asset_alloc(g->asset, (size_t)(g->n_meshes ? g->n_meshes : 1) * sizeof *meshes);
    if (!meshes) return oom(g);
    for (uint32_t m = 0; m < g->n_meshes; m++) {
        const cJSON *o = g->j_meshes[m];
        char path[64];
        snprintf(path, sizeof path, "/meshes/%u", m);
        const char *name;
        TRY(j_opt_string(g, o, "name", path, &name));
        if (!(meshes[m].name = sk_asset_strdup(g->asset, name))) return oom(g);
        const cJSON *prims;
        uint32_t pc;
        TRY(j_array_len(g, o, "primitives", path, &prims, &pc));
        if (pc == 0) return fail(g, SK_ERR_INVALID_DATA, "%s/primitives: required non-empty array missing", path);
        sk_primitive *p = sk_asset_alloc(g->asset, (size_t)pc * sizeof *p);
        if (!p) return oom(g);
        uint32_t k = 0;
        for (const cJSON *c = prims->child; c; c = c->next, k++) {
            char pp[96];
            snprintf(pp, sizeof pp, "%s/primitives/%u", path, k);
            if (!cJSON_IsObject(c)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", pp);
            TRY(load_primitive(g, c, pp, &p[k]));
            /* §3.7.2.2: every primitive has the same number of targets. */
            if (p[k].target_count != p[0].target_count)
                return fail(g, SK_ERR_INVALID_DATA, "%s/targets: %u morph targets, primitive 0 has %u", pp,
                            p[k].target_count, p[0].target_count);
        }
        meshes[m].primitives = p;
        meshes[m].primitive_count = pc;
        meshes[m].weight_count = p[0].target_count;
        const cJSON *jw = j_get(o, "weights");
        if (jw) {
            uint32_t wc = meshes[m].weight_count;
            if (!cJSON_IsArray(jw) || cJSON_GetArraySize(jw) != (int)wc || wc == 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/weights: expected %u numbers (the morph target count)", path, wc);
            float *dw = sk_asset_alloc(g->asset, (size_t)wc * sizeof(float));
            if (!dw) return oom(g);
            uint32_t i = 0;
            for (const cJSON *c = jw->child; c; c = c->next, i++) {
                if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/weights/%u: expected a finite number", path, i);
                dw[i] = (float)c->valuedouble;
            }
            meshes[m].default_weights = dw;
        }
    }
    g->asset->meshes = meshes;
    g->asset->mesh_count = g->n_meshes;
    return SK_OK;
}

/* ---- nodes (§3.5.2 Nodes and Hierarchy, §3.5.3 Transformations) -------- */

static sk_result load_nodes(gl_ctx *g) {
    g->nodes = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof *g->nodes);
    if (!g->nodes) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) g->nodes[i].parent = -1;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const cJSON *o = g->j_nodes[i];
        gl_node *n = &g->nodes[i];
        char path[64];
        snprintf(path, sizeof path, "/nodes/%u", i);
        int32_t cam;
        TRY(j_opt_index(g, o, "mesh", g->n_meshes, "mesh", path, &n->mesh));
        TRY(j_opt_index(g, o, "skin", g->n_skins, "skin", path, &n->skin));
        TRY(j_opt_index(g, o, "camera", g->n_cameras, "camera", path, &cam));
        const cJSON *ch;
        uint32_t cc;
        TRY(j_array_len(g, o, "children", path, &ch, &cc));
        uint32_t k = 0;
        for (const cJSON *c = ch ? ch->child : NULL; c; c = c->next, k++) {
            if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_nodes)
                return fail(g, SK_ERR_INVALID_DATA, "%s/children/%u: not a valid node index (%u nodes)", path, k,
                            g->n_nodes);
            uint32_t child = (uint32_t)c->valuedouble;
            if (child == i) return fail(g, SK_ERR_INVALID_DATA, "%s/children/%u: node is its own child", path, k);
            /* §3.5.2: a node has at most one parent (the hierarchy is a forest). */
            if (g->nodes[child].parent >= 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/children/%u: node %u already has parent %d", path, k, child,
                            g->nodes[child].parent);
            g->nodes[child].parent = (int32_t)i;
        }
        double t[3], r[4], s[3], m[16];
        bool ht, hr, hs, hm;
        TRY(j_opt_numbers(g, o, "translation", path, 3, t, &ht));
        TRY(j_opt_numbers(g, o, "rotation", path, 4, r, &hr));
        TRY(j_opt_numbers(g, o, "scale", path, 3, s, &hs));
        TRY(j_opt_numbers(g, o, "matrix", path, 16, m, &hm));
        sk_transform x = sk_transform_identity();
        if (ht) x.t = sk_vec3_make((float)t[0], (float)t[1], (float)t[2]);
        if (hr) x.r = sk_quat_make((float)r[0], (float)r[1], (float)r[2], (float)r[3]);
        if (hs) x.s = sk_vec3_make((float)s[0], (float)s[1], (float)s[2]);
        for (int q = 0; q < 4; q++)
            if (hr && !sk_isfinite_f((&x.r.x)[q]))
                return fail(g, SK_ERR_INVALID_DATA, "%s/rotation: value is not finite as a float", path);
        if (hr && x.r.x == 0.0f && x.r.y == 0.0f && x.r.z == 0.0f && x.r.w == 0.0f)
            return fail(g, SK_ERR_INVALID_DATA, "%s/rotation: zero quaternion", path);
        for (int q = 0; q < 3; q++)
            if (!sk_isfinite_f((&x.t.x)[q]) || !sk_isfinite_f((&x.s.x)[q]))
                return fail(g, SK_ERR_INVALID_DATA, "%s: translation or scale is not finite as a float", path);
        if (hm) {
            /* §3.5.3: matrix and TRS are exclusive; a matrix must decompose. */
            if (ht || hr || hs)
                return fail(g, SK_ERR_INVALID_DATA, "%s/matrix: defined together with translation/rotation/scale", path);
            sk_mat4 mm;
            bool ident = true;
            for (int q = 0; q < 16; q++) {
                mm.m[q] = (float)m[q];
                if (!sk_isfinite_f(mm.m[q]))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/matrix/%d: value is not finite as a float", path, q);
                if (mm.m[q] != ((q % 5 == 0) ? 1.0f : 0.0f)) ident = false;
            }
            n->has_matrix = true;
            n->matrix_identity = ident;
            if (!ident && !sk_mat4_decompose(&mm, &x))
                return fail(g, SK_ERR_INVALID_DATA, "%s/matrix: not decomposable into translation/rotation/scale", path);
        }
        n->rest = x;
        const cJSON *w = j_get(o, "weights");
        if (w) {
            if (n->mesh < 0) return fail(g, SK_ERR_INVALID_DATA, "%s/weights: defined without a mesh", path);
            uint32_t wc = g->asset->meshes[n->mesh].weight_count;
            if (!cJSON_IsArray(w) || cJSON_GetArraySize(w) != (int)wc || wc == 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/weights: expected %u numbers (mesh %d morph targets)", path, wc,
                            n->mesh);
            uint32_t q = 0;
            for (const cJSON *c = w->child; c; c = c->next, q++)
                if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/weights/%u: expected a finite number", path, q);
            n->weights = w;
        }
        if (n->skin >= 0 && n->mesh < 0)
            return fail(g, SK_ERR_INVALID_DATA, "%s/skin: a skin requires a mesh on the node", path);
    }
    /* Cycle detection: every node has at most one parent, so a cycle is a
     * parent chain that returns to a node visited in the same walk. */
    uint32_t *stamp = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof *stamp);
    if (!stamp) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) stamp[i] = UINT32_MAX;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        uint32_t n = i;
        while (stamp[n] == UINT32_MAX) {
            stamp[n] = i;
            if (g->nodes[n].parent < 0) break;
            n = (uint32_t)g->nodes[n].parent;
            if (stamp[n] == i)
                return fail(g, SK_ERR_INVALID_DATA, "/nodes/%u/children: the node hierarchy has a cycle through node %u",
                            (uint32_t)g->nodes[n].parent, n);
        }
    }
    return SK_OK;
}

/* sk_skeleton_sort places nodes depth-first (pre-order), so a subtree is
 * the contiguous joint range [j, j + subtree[j]): ancestry is O(1). */
static bool is_ancestor_or_self(const gl_ctx *g, uint32_t anc, uint32_t n) {
    uint32_t ja = g->asset->node_to_joint[anc], jn = g->asset->node_to_joint[n];
    return jn >= ja && jn - ja < g->subtree[ja];
}

static uint32_t root_of(const gl_ctx *g, uint32_t n) { return g->root_joint[g->asset->node_to_joint[n]]; }

/* ---- skeleton and mappings ---------------------------------------------- */

static sk_result build_skeleton(gl_ctx *g) {
    uint32_t n = g->n_nodes;
    size_t n1 = n ? n : 1;
    int32_t *parents = tmp_alloc(g, n1, sizeof(int32_t));
    uint32_t *order = tmp_alloc(g, n1, sizeof(uint32_t));
    uint32_t *scratch = tmp_alloc(g, n1, 3 * sizeof(uint32_t));
    uint32_t *n2j = sk_asset_alloc(g->asset, n1 * sizeof(uint32_t));
    uint32_t *j2n = sk_asset_alloc(g->asset, n1 * sizeof(uint32_t));
    int32_t *jmesh = sk_asset_alloc(g->asset, n1 * sizeof(int32_t));
    int32_t *jskin = sk_asset_alloc(g->asset, n1 * sizeof(int32_t));
    int32_t *jpar = tmp_alloc(g, n1, sizeof(int32_t));
    const char **names = tmp_alloc(g, n1, sizeof(char *));
    sk_transform *rest = tmp_alloc(g, n1, sizeof(sk_transform));
    uint32_t *wcounts = tmp_alloc(g, n1, sizeof(uint32_t));
    if (!parents || !order || !scratch || !n2j || !j2n || !jmesh || !jskin || !jpar || !names || !rest || !wcounts)
        return oom(g);
    for (uint32_t i = 0; i < n; i++) parents[i] = g->nodes[i].parent;
    sk_error e = {0};
    sk_result r = n ? sk_skeleton_sort(n, parents, order, scratch, &e) : SK_OK;
    if (r != SK_OK) return fail(g, r, "/nodes: %s", e.message);
    size_t wtotal = 0;
    for (uint32_t k = 0; k < n; k++) {
        j2n[k] = order[k];
        n2j[order[k]] = k;
    }
    for (uint32_t k = 0; k < n; k++) {
        const gl_node *nd = &g->nodes[order[k]];
        jpar[k] = nd->parent < 0 ? -1 : (int32_t)n2j[nd->parent];
        const char *name;
        char path[64];
        snprintf(path, sizeof path, "/nodes/%u", order[k]);
        TRY(j_opt_string(g, g->j_nodes[order[k]], "name", path, &name));
        names[k] = name ? name : "";
        rest[k] = nd->rest;
        jmesh[k] = nd->mesh;
        jskin[k] = nd->skin;
        wcounts[k] = nd->mesh >= 0 ? g->asset->meshes[nd->mesh].weight_count : 0;
        wtotal += wcounts[k];
    }
    float *rw = tmp_alloc(g, wtotal ? wtotal : 1, sizeof(float));
    if (!rw) return oom(g);
    size_t at = 0;
    for (uint32_t k = 0; k < n; k++) {
        const gl_node *nd = &g->nodes[order[k]];
        if (!wcounts[k]) continue;
        const sk_mesh *m = &g->asset->meshes[nd->mesh];
        if (nd->weights) {
            uint32_t q = 0;
            for (const cJSON *c = nd->weights->child; c && q < wcounts[k]; c = c->next, q++)
                rw[at + q] = (float)c->valuedouble;
        } else if (m->default_weights) {
            memcpy(rw + at, m->default_weights, wcounts[k] * sizeof(float));
        }
        at += wcounts[k];
    }
    sk_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = n;
    d.parents = jpar;
    d.names = names;
    d.rest = rest;
    d.weight_counts = wcounts;
    d.rest_weights = rw;
    g->subtree = tmp_alloc(g, n1, sizeof(uint32_t));
    g->root_joint = tmp_alloc(g, n1, sizeof(uint32_t));
    if (!g->subtree || !g->root_joint) return oom(g);
    for (uint32_t k = n; k-- > 0;) {
        g->subtree[k] += 1;
        if (jpar[k] >= 0) g->subtree[jpar[k]] += g->subtree[k];
    }
    for (uint32_t k = 0; k < n; k++) {
        g->root_joint[k] = jpar[k] < 0 ? k : g->root_joint[jpar[k]];
        if (jpar[k] >= 0 && !(k > (uint32_t)jpar[k] && k - (uint32_t)jpar[k] < g->subtree[jpar[k]]))
            return fail(g, SK_ERR_INVALID_DATA, "/nodes: internal error: node order is not depth-first");
    }
    r = sk_skeleton_create(&d, g->alloc, &g->asset->skeleton, &e);
    if (r != SK_OK) return fail(g, r, "/nodes: %s", e.message);
    g->asset->node_count = n;
    g->asset->node_to_joint = n2j;
    g->asset->joint_to_node = j2n;
    g->asset->joint_mesh = jmesh;
    g->asset->joint_skin = jskin;
    return SK_OK;
}

/* ---- skins (§3.7.3) ----------------------------------------------------- */

static sk_result load_skins(gl_ctx *g) {
    sk_skin *skins = sk_asset_alloc(g->asset, (size_t)(g->n_skins ? g->n_skins : 1) * sizeof *skins);
    uint32_t *seen = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof(uint32_t));
    if (!skins || !seen) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) seen[i] = UINT32_MAX;
    for (uint32_t s = 0; s < g->n_skins; s++) {
        const cJSON *o = g->j_skins[s];
        char path[64];
        snprintf(path, sizeof path, "/skins/%u", s);
        const char *name;
        TRY(j_opt_string(g, o, "name", path, &name));
        if (!(skins[s].name = sk_asset_strdup(g->asset, name))) return oom(g);
        const cJSON *ja;
        uint32_t jc;
        TRY(j_array_len(g, o, "joints", path, &ja, &jc));
        if (jc == 0) return fail(g, SK_ERR_INVALID_DATA, "%s/joints: required non-empty array missing", path);
        uint32_t *joints = sk_asset_alloc(g->asset, (size_t)jc * sizeof(uint32_t));
        sk_mat4 *ibm = sk_asset_alloc(g->asset, (size_t)jc * sizeof(sk_mat4));
        if (!joints || !ibm) return oom(g);
        uint32_t k = 0, common_root = 0;
        for (const cJSON *c = ja->child; c; c = c->next, k++) {
            if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_nodes)
                return fail(g, SK_ERR_INVALID_DATA, "%s/joints/%u: not a valid node index (%u nodes)", path, k, g->n_nodes);
            uint32_t node = (uint32_t)c->valuedouble;
            if (seen[node] == s)
                return fail(g, SK_ERR_INVALID_DATA, "%s/joints/%u: node %u is listed twice", path, k, node);
            seen[node] = s;
            joints[k] = g->asset->node_to_joint[node];
            /* §3.7.3.1: the joints of a skin share a common root. */
            uint32_t rt = root_of(g, node);
            if (k == 0) common_root = rt;
            else if (rt != common_root)
                return fail(g, SK_ERR_INVALID_DATA, "%s/joints/%u: node %u does not share a common root with node %.0f",
                            path, k, node, ja->child->valuedouble);
        }
        int32_t skel;
        TRY(j_opt_index(g, o, "skeleton", g->n_nodes, "node", path, &skel));
        skins[s].skeleton_root = -1;
        if (skel >= 0) {
            k = 0;
            for (const cJSON *c = ja->child; c; c = c->next, k++)
                if (!is_ancestor_or_self(g, (uint32_t)skel, (uint32_t)c->valuedouble))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/skeleton: node %d is not an ancestor of joint node %.0f",
                                path, skel, c->valuedouble);
            skins[s].skeleton_root = (int32_t)g->asset->node_to_joint[skel];
        }
        const cJSON *jibm = j_get(o, "inverseBindMatrices");
        if (jibm) {
            char p[96];
            snprintf(p, sizeof p, "%s/inverseBindMatrices", path);
            uint32_t ai;
            TRY(acc_ref(g, jibm, p, "MAT4", CB_F, &ai));
            const gl_acc *a = &g->accs[ai];
            if (a->count < jc)
                return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u has %u matrices for %u joints", p, ai, a->count, jc);
            if (a->view >= 0 && g->views[a->view].stride)
                return fail(g, SK_ERR_INVALID_DATA, "%s: bufferView %d has a byteStride", p, a->view);
            float *f;
            TRY(acc_read_float(g, ai, &g->tmp, p, &f));
            for (uint32_t j = 0; j < jc; j++) {
                memcpy(ibm[j].m, f + (size_t)j * 16, sizeof ibm[j].m);
                /* Inverse bind matrices are affine: bottom row (0, 0, 0, 1). */
                const float *m = ibm[j].m;
                if ((a->view >= 0 || a->sparse_count) && (fabsf(m[3]) > 1e-5f || fabsf(m[7]) > 1e-5f || fabsf(m[11]) > 1e-5f || fabsf(m[15] - 1.0f) > 1e-5f))
                    return fail(g, SK_ERR_INVALID_DATA, "%s: matrix %u is not affine (bottom row %g %g %g %g)", p, j,
                                (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
            }
        } else {
            for (uint32_t j = 0; j < jc; j++) ibm[j] = sk_mat4_identity();
        }
        skins[s].joints = joints;
        skins[s].joint_count = jc;
        skins[s].inverse_bind = ibm;
    }
    g->asset->skins = skins;
    g->asset->skin_count = g->n_skins;
    /* A skinned node's mesh: joints index the skin's joint list. The largest
     * joint index of each mesh is found once (nodes may share meshes). */
    int32_t *max_joint = tmp_alloc(g, g->n_meshes ? g->n_meshes : 1, sizeof(int32_t));
    if (!max_joint) return oom(g);
    for (uint32_t m = 0; m < g->n_meshes; m++) {
        const sk_mesh *mesh = &g->asset->meshes[m];
        max_joint[m] = -1;
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const sk_primitive *pr = &mesh->primitives[p];
            size_t n = (size_t)pr->vertex_count * pr->influence_count;
            if (pr->influence_count && max_joint[m] < 0) max_joint[m] = 0;
            for (size_t v = 0; v < n; v++)
                if (pr->joints[v] > max_joint[m]) max_joint[m] = pr->joints[v];
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const gl_node *nd = &g->nodes[i];
        if (nd->skin < 0) continue;
        const sk_mesh *m = &g->asset->meshes[nd->mesh];
        uint32_t jc = skins[nd->skin].joint_count;
        bool skinned = max_joint[nd->mesh] >= 0;
        for (uint32_t p = 0; skinned && (uint32_t)max_joint[nd->mesh] >= jc && p < m->primitive_count; p++) {
            const sk_primitive *pr = &m->primitives[p];
            size_t n = (size_t)pr->vertex_count * pr->influence_count;
            for (size_t v = 0; v < n; v++)
                if (pr->joints[v] >= jc)
                    return fail(g, SK_ERR_INVALID_DATA,
                                "/meshes/%d/primitives/%u/attributes/JOINTS_%zu: vertex %zu uses joint %u but skin %d "
                                "(of node %u) has %u joints",
                                nd->mesh, p, (v % pr->influence_count) / 4, v / pr->influence_count,
                                (unsigned)pr->joints[v], nd->skin, i, jc);
        }
        if (!skinned)
            return fail(g, SK_ERR_INVALID_DATA, "/nodes/%u/skin: mesh %d has no JOINTS_0/WEIGHTS_0", i, nd->mesh);
    }
    return SK_OK;
}

/* ---- scenes (§3.5.1) ----------------------------------------------------- */

static sk_result load_scenes(gl_ctx *g) {
    sk_scene *scenes = sk_asset_alloc(g->asset, (size_t)(g->n_scenes ? g->n_scenes : 1) * sizeof *scenes);
    uint32_t *seen = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof(uint32_t));
    if (!scenes || !seen) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) seen[i] = UINT32_MAX;
    for (uint32_t s = 0; s < g->n_scenes; s++) {
        const cJSON *o = g->j_scenes[s];
        char path[64];
        snprintf(path, sizeof path, "/scenes/%u", s);
        const char *name;
        TRY(j_opt_string(g, o, "name", path, &name));
        if (!(scenes[s].name = sk_asset_strdup(g->asset, name))) return oom(g);
        const cJSON *arr;
        uint32_t nc;
        TRY(j_array_len(g, o, "nodes", path, &arr, &nc));
        uint32_t *roots = sk_asset_alloc(g->asset, (size_t)(nc ? nc : 1) * sizeof(uint32_t));
        if (!roots) return oom(g);
        uint32_t k = 0;
        for (const cJSON *c = arr ? arr->child : NULL; c; c = c->next, k++) {
            if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_nodes)
                return fail(g, SK_ERR_INVALID_DATA, "%s/nodes/%u: not a valid node index (%u nodes)", path, k, g->n_nodes);
            uint32_t node = (uint32_t)c->valuedouble;
            if (g->nodes[node].parent >= 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/nodes/%u: node %u is not a root (its parent is node %d)", path,
                            k, node, g->nodes[node].parent);
            if (seen[node] == s)
                return fail(g, SK_ERR_INVALID_DATA, "%s/nodes/%u: node %u is listed twice", path, k, node);
            seen[node] = s;
            roots[k] = g->asset->node_to_joint[node];
        }
        scenes[s].roots = roots;
        scenes[s].root_count = nc;
    }
    g->asset->scenes = scenes;
    g->asset->scene_count = g->n_scenes;
    int32_t def;
    TRY(j_opt_index(g, g->root, "scene", g->n_scenes, "scene", "", &def));
    g->asset->default_scene = def >= 0 ? def : (g->n_scenes ? 0 : -1);
    return SK_OK;
}

/* ---- animations (§3.11) --------------------------------------------------- */

static sk_result load_channel(gl_ctx *g, sk_clip_builder *b, uint32_t ai, uint32_t ci, const cJSON *ch,
                              const cJSON **samplers, uint32_t n_samplers, uint8_t *seen) {
    char path[96];
    snprintf(path, sizeof path, "/animations/%u/channels/%u", ai, ci);
    if (!cJSON_IsObject(ch)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", path);
    uint32_t si = 0;
    TRY(j_req_index(g, ch, "sampler", n_samplers, "sampler", path, &si));
    const cJSON *target = j_get(ch, "target");
    char tp[112];
    snprintf(tp, sizeof tp, "%s/target", path);
    if (!cJSON_IsObject(target)) return fail(g, SK_ERR_INVALID_DATA, "%s: required object missing", tp);
    const char *pathname;
    TRY(j_opt_string(g, target, "path", tp, &pathname));
    if (!pathname) return fail(g, SK_ERR_INVALID_DATA, "%s/path: required property missing", tp);
    int32_t node;
    TRY(j_opt_index(g, target, "node", g->n_nodes, "node", tp, &node));
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
    const cJSON *smp = samplers[si];
    char sp[96];
    snprintf(sp, sizeof sp, "/animations/%u/samplers/%u", ai, si);
    if (!cJSON_IsObject(smp)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", sp);
    const char *interp;
    TRY(j_opt_string(g, smp, "interpolation", sp, &interp));
    sk_interpolation mode = SK_INTERP_LINEAR;
    if (!interp || strcmp(interp, "LINEAR") == 0) mode = SK_INTERP_LINEAR;
    else if (strcmp(interp, "STEP") == 0) mode = SK_INTERP_STEP;
    else if (strcmp(interp, "CUBICSPLINE") == 0) mode = SK_INTERP_CUBICSPLINE;
    else return fail(g, SK_ERR_INVALID_DATA, "%s/interpolation: \"%s\" is not a glTF interpolation", sp, interp);
    char ip[112], op[112];
    snprintf(ip, sizeof ip, "%s/input", sp);
    snprintf(op, sizeof op, "%s/output", sp);
    const cJSON *jin = j_get(smp, "input"), *jout = j_get(smp, "output");
    if (!jin) return fail(g, SK_ERR_INVALID_DATA, "%s: required property missing", ip);
    if (!jout) return fail(g, SK_ERR_INVALID_DATA, "%s: required property missing", op);
    uint32_t ia = 0, oa = 0;
    TRY(acc_ref(g, jin, ip, "SCALAR", CB_F, &ia));
    /* Output component types: translation/scale FLOAT; rotation and weights
     * also normalised (unsigned) byte/short (§3.11, the output table). */
    unsigned allowed = tpath == SK_PATH_TRANSLATION || tpath == SK_PATH_SCALE
                           ? CB_F
                           : CB_F | CB_BN | CB_UBN | CB_SN | CB_USN;
    const char *otype = tpath == SK_PATH_WEIGHTS ? "SCALAR" : tpath == SK_PATH_ROTATION ? "VEC4" : "VEC3";
    TRY(acc_ref(g, jout, op, otype, allowed, &oa));
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
    float *times, *values;
    sk_arena_reset(&g->chan);
    TRY(acc_read_float(g, ia, &g->chan, ip, &times));
    for (uint32_t i = 0; i < keys; i++) {
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
    TRY(acc_read_float(g, oa, &g->chan, op, &values));
    if (tpath == SK_PATH_ROTATION) {
        /* Rotation keys are unit quaternions (the validator's tolerance). */
        uint32_t elems = out->count;
        for (uint32_t e = 0; e < elems; e++) {
            if (mode == SK_INTERP_CUBICSPLINE && e % 3 != 1) continue;
            const float *q = values + (size_t)e * 4;
            double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
            if (fabs(len - 1.0) > 0.00769)
                return fail(g, SK_ERR_INVALID_DATA, "%s: rotation element %u is not a unit quaternion (length %g)", op, e,
                            len);
        }
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
    sk_result r = sk_clip_builder_add_track(b, &td, &e);
    if (r != SK_OK) return fail(g, r, "%s: %s", path, e.message);
    return SK_OK;
}

static sk_result load_animations(gl_ctx *g) {
    sk_clip **clips = sk_asset_alloc(g->asset, (size_t)(g->n_anims ? g->n_anims : 1) * sizeof *clips);
    uint8_t *seen = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, 1);
    if (!clips || !seen) return oom(g);
    g->asset->clips = clips;
    for (uint32_t a = 0; a < g->n_anims; a++) {
        const cJSON *o = g->j_anims[a];
        char path[64];
        snprintf(path, sizeof path, "/animations/%u", a);
        const char *name;
        TRY(j_opt_string(g, o, "name", path, &name));
        const cJSON *chans, *samplers;
        uint32_t nc, ns;
        TRY(j_array_len(g, o, "channels", path, &chans, &nc));
        TRY(j_array_len(g, o, "samplers", path, &samplers, &ns));
        if (!chans) return fail(g, SK_ERR_INVALID_DATA, "%s/channels: required property missing", path);
        if (!samplers) return fail(g, SK_ERR_INVALID_DATA, "%s/samplers: required property missing", path);
        memset(seen, 0, g->n_nodes ? g->n_nodes : 1);
        const cJSON **stable = tmp_alloc(g, ns ? ns : 1, sizeof *stable);
        if (!stable) return oom(g);
        uint32_t k = 0;
        for (const cJSON *c = samplers->child; c; c = c->next) stable[k++] = c;
        sk_clip_builder *b;
        sk_error e = {0};
        sk_result r = sk_clip_builder_create(name ? name : "", g->alloc, &b, &e);
        if (r != SK_OK) return fail(g, r, "%s: %s", path, e.message);
        /* Reserve the builder's storage from the samplers' accessor counts (a hint:
         * indices are validated channel by channel below). */
        size_t rkeys = 0, rvals = 0;
        for (const cJSON *c = chans->child; c; c = c->next) {
            const cJSON *si = j_get(c, "sampler");
            if (!j_is_uint(si, ns)) continue;
            const cJSON *in = j_get(stable[(uint32_t)si->valuedouble], "input");
            const cJSON *outp = j_get(stable[(uint32_t)si->valuedouble], "output");
            if (j_is_uint(in, g->n_accessors)) rkeys += g->accs[(uint32_t)in->valuedouble].count;
            if (j_is_uint(outp, g->n_accessors)) {
                const gl_acc *oa = &g->accs[(uint32_t)outp->valuedouble];
                rvals += (size_t)oa->count * oa->ncomp;
            }
        }
        if (rkeys + rvals <= g->max_bytes) (void)sk_clip_builder_reserve(b, nc, rkeys, rvals, NULL);
        uint32_t ci = 0;
        for (const cJSON *c = chans->child; c; c = c->next, ci++) {
            r = load_channel(g, b, a, ci, c, stable, ns, seen);
            if (r != SK_OK) {
                sk_clip_builder_destroy(b);
                return r;
            }
        }
        r = sk_clip_builder_finish(b, &clips[a], &e);
        if (r != SK_OK) return fail(g, r, "%s: %s", path, e.message);
        g->asset->clip_count = a + 1;
    }
    g->asset->clip_count = g->n_anims;
    return SK_OK;
}

/* ---- container (§4 GLB File Format Specification) ------------------------ */

#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

static sk_result parse_glb(gl_ctx *g, const uint8_t *d, size_t size, const char **json, size_t *json_len) {
    if (size < 12) return fail(g, SK_ERR_PARSE, "GLB: %zu bytes is shorter than the 12-byte header", size);
    uint32_t version = rd_u32(d + 4), length = rd_u32(d + 8);
    if (version != 2) return fail(g, SK_ERR_UNSUPPORTED, "GLB: container version %u is not supported (only 2)", version);
    if (length > size)
        return fail(g, SK_ERR_PARSE, "GLB: header length %u exceeds the %zu bytes available (truncated file)", length, size);
    if (length < 20) return fail(g, SK_ERR_PARSE, "GLB: header length %u leaves no room for a JSON chunk", length);
    if (length % 4 != 0) return fail(g, SK_ERR_PARSE, "GLB: length %u is not a multiple of 4", length);
    /* Bytes after `length` are ignored (§4.4: length is the whole GLB). */
    size_t at = 12;
    uint32_t idx = 0;
    bool have_json = false;
    while (at < length) {
        if (length - at < 8)
            return fail(g, SK_ERR_PARSE, "GLB: chunk %u header at byte %zu is truncated", idx, at);
        uint32_t clen = rd_u32(d + at), ctype = rd_u32(d + at + 4);
        at += 8;
        if (clen > length - at)
            return fail(g, SK_ERR_PARSE, "GLB: chunk %u of %u bytes at byte %zu exceeds the file length %u", idx, clen,
                        at, length);
        /* §4.4.3.1: chunk data is padded to 4 bytes; the length includes it. */
        if (clen % 4 != 0) return fail(g, SK_ERR_PARSE, "GLB: chunk %u length %u is not a multiple of 4", idx, clen);
        if (idx == 0) {
            if (ctype != GLB_JSON)
                return fail(g, SK_ERR_PARSE, "GLB: first chunk has type 0x%08x, expected JSON", ctype);
            if (clen == 0) return fail(g, SK_ERR_PARSE, "GLB: JSON chunk is empty");
            *json = (const char *)d + at;
            *json_len = clen;
            have_json = true;
        } else if (ctype == GLB_JSON) {
            return fail(g, SK_ERR_PARSE, "GLB: chunk %u is a second JSON chunk", idx);
        } else if (ctype == GLB_BIN) {
            if (idx != 1 || g->has_bin) return fail(g, SK_ERR_PARSE, "GLB: chunk %u: BIN must be the second chunk, once", idx);
            g->bin = d + at;
            g->bin_size = clen;
            g->has_bin = true;
        } /* other chunk types are ignored (§4.4.3.1) */
        at += clen;
        idx++;
    }
    if (!have_json) return fail(g, SK_ERR_PARSE, "GLB: no JSON chunk");
    return SK_OK;
}

static sk_result load_all(gl_ctx *g, const void *data, size_t size) {
    const uint8_t *d = data;
    const char *json = data;
    size_t json_len = size;
    if (size == 0) return fail(g, SK_ERR_PARSE, "empty file");
    if (size >= 4 && rd_u32(d) == GLB_MAGIC) {
        g->is_glb = true;
        TRY(parse_glb(g, d, size, &json, &json_len));
    }
    /* glTF JSON is UTF-8 without a byte order mark (§3.1 / §4.4.3.2). */
    if (json_len >= 3 && memcmp(json, "\xEF\xBB\xBF", 3) == 0)
        return fail(g, SK_ERR_PARSE, "JSON starts with a byte order mark, which glTF does not allow");
    const char *end = NULL;
    g->root = cJSON_ParseWithLengthOpts(json, json_len, &end, false);
    if (!g->root) {
        /* cJSON reports the error position through the end pointer. */
        size_t off = end && end >= json && end <= json + json_len ? (size_t)(end - json) : 0;
        return fail(g, SK_ERR_PARSE, "JSON syntax error near byte %zu", off);
    }
    for (const char *p = end; p && p < json + json_len; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            return fail(g, SK_ERR_PARSE, "JSON: trailing data after the root object at byte %zu", (size_t)(p - json));
    if (!cJSON_IsObject(g->root)) return fail(g, SK_ERR_INVALID_DATA, "/: the JSON root is not an object");
    TRY(check_asset(g));
    const cJSON *ext = j_get(g->root, "extensions");
    if (ext && !cJSON_IsObject(ext)) return fail(g, SK_ERR_INVALID_DATA, "/extensions: expected an object");
    for (const cJSON *c = ext ? ext->child : NULL; c; c = c->next)
        if (!cJSON_IsObject(c))
            return fail(g, SK_ERR_INVALID_DATA, "/extensions/%s: expected an object", c->string ? c->string : "?");
    /* Top-level arrays: each must be an array of objects (we type-check the
     * ones we do not read too; cheap and it catches broken files early). */
    static const char *const others[] = {"cameras", "images", "samplers", "textures"};
    for (size_t i = 0; i < SK_ARRAY_COUNT(others); i++) {
        const cJSON **t;
        uint32_t n;
        TRY(j_collection(g, others[i], &t, &n));
        if (i == 0) g->n_cameras = n;
    }
    TRY(j_collection(g, "buffers", &g->j_buffers, &g->n_buffers));
    TRY(j_collection(g, "bufferViews", &g->j_views, &g->n_views));
    TRY(j_collection(g, "accessors", &g->j_accessors, &g->n_accessors));
    TRY(j_collection(g, "nodes", &g->j_nodes, &g->n_nodes));
    TRY(j_collection(g, "meshes", &g->j_meshes, &g->n_meshes));
    TRY(j_collection(g, "skins", &g->j_skins, &g->n_skins));
    TRY(j_collection(g, "animations", &g->j_anims, &g->n_anims));
    TRY(j_collection(g, "scenes", &g->j_scenes, &g->n_scenes));
    TRY(j_collection(g, "materials", &g->j_materials, &g->n_materials));
    if (g->n_nodes > SK_MAX_JOINTS)
        return fail(g, SK_ERR_LIMIT, "/nodes: %u nodes exceed the limit of %u", g->n_nodes, SK_MAX_JOINTS);
    TRY(load_buffers(g));
    TRY(load_views(g));
    g->accs = tmp_alloc(g, g->n_accessors ? g->n_accessors : 1, sizeof *g->accs);
    if (!g->accs) return oom(g);
    for (uint32_t i = 0; i < g->n_accessors; i++) TRY(load_accessor(g, i));
    TRY(load_meshes(g));
    TRY(load_nodes(g));
    TRY(build_skeleton(g));
    TRY(load_skins(g));
    TRY(load_scenes(g));
    TRY(load_animations(g));
    return SK_OK;
}

sk_result sk_gltf_load_memory(const void *data, size_t size, const char *base_dir, const sk_gltf_options *opts,
                              sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_memory: out is NULL");
    *out = NULL;
    if (!data && size) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_memory: data is NULL");
    sk_gltf_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!opts) opts = &defaults;
    gl_ctx g;
    memset(&g, 0, sizeof g);
    g.alloc = sk_allocator_or_default(&opts->allocator);
    g.err = err;
    g.base_dir = base_dir;
    g.max_bytes = opts->max_file_bytes ? opts->max_file_bytes : GL_DEFAULT_MAX_BYTES;
    if (size > g.max_bytes)
        return sk_error_set(err, SK_ERR_LIMIT, "input of %zu bytes exceeds the limit of %llu", size,
                            (unsigned long long)g.max_bytes);
    sk_arena_init(&g.tmp, g.alloc);
    sk_arena_init(&g.chan, g.alloc);
    sk_result r = sk_asset_create_empty(g.alloc, &g.asset, err);
    if (r == SK_OK) r = load_all(&g, data ? data : "", size);
    if (g.root) cJSON_Delete(g.root);
    sk_arena_release(&g.tmp);
    sk_arena_release(&g.chan);
    if (r != SK_OK) {
        sk_asset_destroy(g.asset);
        return r;
    }
    *out = g.asset;
    return SK_OK;
}

sk_result sk_gltf_load_file(const char *path, const sk_gltf_options *opts, sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_file: out is NULL");
    *out = NULL;
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_file: path is NULL");
    uint64_t max = opts && opts->max_file_bytes ? opts->max_file_bytes : GL_DEFAULT_MAX_BYTES;
    const sk_allocator *alloc = sk_allocator_or_default(opts ? &opts->allocator : NULL);
    FILE *f = fopen(path, "rb");
    if (!f) return sk_error_set(err, SK_ERR_IO, "%s: cannot open", path);
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return sk_error_set(err, SK_ERR_IO, "%s: cannot determine the file size", path);
    }
    if ((uint64_t)n > max || (uint64_t)n > SIZE_MAX - 1) {
        fclose(f);
        return sk_error_set(err, SK_ERR_LIMIT, "%s: %ld bytes exceed the limit of %llu", path, n,
                            (unsigned long long)max);
    }
    size_t size = (size_t)n;
    uint8_t *buf = sk_realloc_raw(alloc, NULL, 0, size + 1); /* fully overwritten by fread */
    if (!buf) {
        fclose(f);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    size_t got = size ? fread(buf, 1, size, f) : 0;
    buf[size] = 0;
    fclose(f);
    if (got != size) {
        sk_free(alloc, buf, size + 1);
        return sk_error_set(err, SK_ERR_IO, "%s: read error", path);
    }
    /* The folder of the file resolves relative URIs. */
    size_t plen = strlen(path);
    char *dir = sk_alloc(alloc, plen + 2);
    if (!dir) {
        sk_free(alloc, buf, size + 1);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    const char *slash = strrchr(path, '/');
    if (slash) memcpy(dir, path, (size_t)(slash - path) + (slash == path ? 1 : 0));
    else dir[0] = '.';
    sk_error e = {0};
    sk_result r = sk_gltf_load_memory(buf, size, dir, opts, out, &e);
    sk_free(alloc, dir, plen + 2);
    sk_free(alloc, buf, size + 1);
    if (r != SK_OK) return sk_error_set(err, r, "%s: %s", path, e.message);
    return SK_OK;
}
