/* glTF reader, container layer: the GLB container (§4), the JSON document
 * and its helpers, the asset object and required extensions (§3.2, §3.12),
 * URIs (§2.8: data: with base64 or percent-encoded octets, relative file
 * paths, percent-decoding), buffers (§3.6.1) and images. The entry points
 * that run the whole load are in gltf_read.c; this file calls no other
 * part of the reader.
 * Everything the reader follows (indices, offsets, counts) is validated
 * before use; errors name the JSON path ("/accessors/3/count: ..."). */
#if !defined(_WIN32) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* realpath (glibc declares it for X/Open) */
#endif
#include "io/gltf_internal.h"
#include "io/json_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__unix__) || defined(__unix) || defined(__APPLE__)
#define SK_GL_REALPATH 1
#endif

void sk_gl_warn(gl_ctx *g, const char *fmt, ...) {
    if (!g->warn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g->warn(g->warn_user, msg);
}

/* ---- JSON helpers ------------------------------------------------------- */

/* Collects a top-level array of objects into a flat table (the reader
 * indexes them; an element is found by walking its siblings). */
sk_result sk_gl_collection(gl_ctx *g, const char *key, const sk_jv ***out, uint32_t *count) {
    *out = NULL;
    *count = 0;
    const sk_jv *arr = j_get(g->root, key);
    if (!arr) return SK_OK;
    if (!j_is_array(arr)) return fail(g, SK_ERR_INVALID_DATA, "/%s: expected an array", key);
    size_t n = 0;
    for (const sk_jv *c = j_child(arr); c; c = j_next(c)) {
        if (!j_is_object(c))
            return fail(g, SK_ERR_INVALID_DATA, "/%s/%zu: expected an object", key, n);
        n++;
    }
    if (n > SK_MAX_JOINTS * 16ull)
        return fail(g, SK_ERR_LIMIT, "/%s: %zu entries is more than this reader accepts", key, n);
    const sk_jv **t = tmp_alloc(g, n ? n : 1, sizeof *t);
    if (!t) return oom(g);
    n = 0;
    for (const sk_jv *c = j_child(arr); c; c = j_next(c)) t[n++] = c;
    *out = t;
    *count = (uint32_t)n;
    return SK_OK;
}

/* Optional index property: -1 when absent. */
sk_result sk_gl_opt_index(gl_ctx *g, const sk_jv *obj, const char *key, uint32_t limit,
                             const char *what, const char *path, int32_t *out) {
    *out = -1;
    const sk_jv *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!j_is_uint(it, 4294967296.0))
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected a non-negative integer index", path, key);
    if (it->valuedouble >= (double)limit)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: %s index %.0f out of range (%u %s)", path, key,
                    what, it->valuedouble, limit, what);
    *out = (int32_t)it->valuedouble;
    return SK_OK;
}

sk_result sk_gl_req_index(gl_ctx *g, const sk_jv *obj, const char *key, uint32_t limit,
                             const char *what, const char *path, uint32_t *out) {
    int32_t v;
    TRY(sk_gl_opt_index(g, obj, key, limit, what, path, &v));
    if (v < 0) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: required property missing", path, key);
    *out = (uint32_t)v;
    return SK_OK;
}

/* Optional non-negative integer with a default and an upper bound. */
sk_result sk_gl_opt_uint(gl_ctx *g, const sk_jv *obj, const char *key, const char *path,
                            uint64_t def, double max, uint64_t *out, bool *present) {
    *out = def;
    if (present) *present = false;
    const sk_jv *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!j_is_uint(it, 18446744073709551616.0))
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected a non-negative integer", path, key);
    if (it->valuedouble > max)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: %.0f is larger than %.0f", path, key, it->valuedouble, max);
    *out = (uint64_t)it->valuedouble;
    if (present) *present = true;
    return SK_OK;
}

sk_result sk_gl_req_uint(gl_ctx *g, const sk_jv *obj, const char *key, const char *path,
                            double max, uint64_t *out) {
    bool present;
    TRY(sk_gl_opt_uint(g, obj, key, path, 0, max, out, &present));
    if (!present) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: required property missing", path, key);
    return SK_OK;
}

sk_result sk_gl_opt_string(gl_ctx *g, const sk_jv *obj, const char *key, const char *path,
                              const char **out) {
    *out = NULL;
    const sk_jv *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!j_is_string(it) || !it->valuestring)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected a string", path, key);
    *out = it->valuestring;
    return SK_OK;
}

/* Fixed-length array of finite numbers; *present false when absent. */
sk_result sk_gl_opt_numbers(gl_ctx *g, const sk_jv *obj, const char *key, const char *path,
                               uint32_t n, double *out, bool *present) {
    *present = false;
    const sk_jv *it = j_get(obj, key);
    if (!it) return SK_OK;
    if (!j_is_array(it)) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected an array", path, key);
    uint32_t i = 0;
    for (const sk_jv *c = j_child(it); c; c = j_next(c), i++) {
        if (i >= n) break;
        if (!j_is_number(c))
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s/%u: expected a number", path, key, i);
        if (!isfinite(c->valuedouble))
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s/%u: value is not finite", path, key, i);
        out[i] = c->valuedouble;
    }
    if (i != n || j_size(it) != (int)n)
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected %u numbers", path, key, n);
    *present = true;
    return SK_OK;
}

/* Array length of an optional array property (type-checked); 0 when absent. */
sk_result sk_gl_array_len(gl_ctx *g, const sk_jv *obj, const char *key, const char *path,
                             const sk_jv **arr, uint32_t *len) {
    *arr = j_get(obj, key);
    *len = 0;
    if (!*arr) return SK_OK;
    if (!j_is_array(*arr)) return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected an array", path, key);
    uint32_t n = 0;
    for (const sk_jv *c = j_child((*arr)); c; c = j_next(c)) {
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

sk_result sk_gl_check_asset(gl_ctx *g) {
    const sk_jv *asset = j_get(g->root, "asset");
    if (!j_is_object(asset)) return fail(g, SK_ERR_INVALID_DATA, "/asset: required object missing");
    const char *version, *minv;
    TRY(sk_gl_opt_string(g, asset, "version", "/asset", &version));
    TRY(sk_gl_opt_string(g, asset, "minVersion", "/asset", &minv));
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
    TRY(sk_gl_opt_string(g, asset, "generator", "/asset", &gen));
    g->asset->generator = sk_asset_strdup(g->asset, gen);
    if (!g->asset->generator) return oom(g);

    const sk_jv *used = j_get(g->root, "extensionsUsed"), *req = j_get(g->root, "extensionsRequired");
    if (used && !j_is_array(used)) return fail(g, SK_ERR_INVALID_DATA, "/extensionsUsed: expected an array");
    if (req && !j_is_array(req)) return fail(g, SK_ERR_INVALID_DATA, "/extensionsRequired: expected an array");
    if (req) {
        uint32_t i = 0;
        for (const sk_jv *c = j_child(req); c; c = j_next(c), i++) {
            if (!j_is_string(c) || !c->valuestring)
                return fail(g, SK_ERR_INVALID_DATA, "/extensionsRequired/%u: expected a string", i);
            if (!extension_supported(c->valuestring))
                return fail(g, SK_ERR_UNSUPPORTED, "/extensionsRequired/%u: required extension %s is not supported",
                            i, c->valuestring);
            if (strcmp(c->valuestring, "KHR_mesh_quantization") == 0) g->quantization = true;
        }
    }
    /* Issue #14 item 5: what the reader skips is said. Every extension but
     * KHR_mesh_quantization is ignored (an unsupported required one was
     * refused above). */
    if (used) {
        uint32_t i = 0;
        for (const sk_jv *c = j_child(used); c; c = j_next(c), i++)
            if (j_is_string(c) && c->valuestring && strcmp(c->valuestring, "KHR_mesh_quantization") != 0)
                sk_gl_warn(g, "/extensionsUsed/%u: %s is not read: what it adds to the file is ignored", i,
                           c->valuestring);
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
static sk_result base64_decode(gl_ctx *g, sk_arena *arena, const char *s, size_t n, const char *path, uint8_t **out,
                               size_t *out_len) {
    size_t pad = 0;
    while (n > 0 && s[n - 1] == '=' && pad < 2) { n--; pad++; }
    if (pad && (n + pad) % 4 != 0)
        return fail(g, SK_ERR_INVALID_DATA, "%s/uri: malformed base64 padding", path);
    if (n % 4 == 1) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: truncated base64 data", path);
    size_t len = n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0);
    if (len > g->max_bytes)
        return fail(g, SK_ERR_LIMIT, "%s/uri: %zu decoded bytes exceed the limit", path, len);
    uint8_t *o = sk_arena_alloc_raw(arena, len ? len : 1); /* every byte is written */
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
static sk_result percent_decode_data(gl_ctx *g, sk_arena *arena, const char *s, const char *path, uint8_t **out,
                                     size_t *out_len) {
    size_t n = strlen(s), k = 0;
    uint8_t *o = sk_arena_alloc(arena, n ? n : 1);
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

/* data:[<mediatype>][;base64],<data> (RFC 2397): the payload decoded into
 * arena, and the media type (pointing into uri, *media_len bytes, 0 when
 * there is none). */
static sk_result decode_data_uri(gl_ctx *g, sk_arena *arena, const char *uri, const char *path, uint8_t **out,
                                 size_t *out_len, const char **media, size_t *media_len) {
    const char *comma = strchr(uri, ',');
    if (!comma) return fail(g, SK_ERR_INVALID_DATA, "%s/uri: malformed data URI (no comma)", path);
    size_t hl = (size_t)(comma - uri - 5);
    const char *h = uri + 5;
    bool b64 = hl >= 7 && memcmp(h + hl - 7, ";base64", 7) == 0;
    size_t ml = b64 ? hl - 7 : hl;
    /* parameters (";charset=...") are not part of the type */
    const char *semi = memchr(h, ';', ml);
    *media = h;
    *media_len = semi ? (size_t)(semi - h) : ml;
    if (b64) return base64_decode(g, arena, comma + 1, strlen(comma + 1), path, out, out_len);
    return percent_decode_data(g, arena, comma + 1, path, out, out_len);
}

#if defined(SK_GL_REALPATH)
/* Whether the canonical path file lies under the canonical folder dir. */
static bool under(const char *file, const char *dir) {
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return true;
    return strncmp(file, dir, n) == 0 && file[n] == '/';
}
#endif

/* With the default file system (no read callback), an external file must
 * resolve (symbolic links followed, realpath) inside the model's folder or
 * one of sk_gltf_options.allowed_roots: a relative URI that is a link to
 * /etc/passwd is refused before anything is read. A file that does not
 * exist is left to the read, which says so. With a read callback the
 * callback decides. Elsewhere than POSIX: no check. */
static sk_result check_contained(gl_ctx *g, const char *full, const char *path, const char *uri) {
#if defined(SK_GL_REALPATH)
    if (g->io && g->io->read) return SK_OK;
    char *file = realpath(full, NULL);
    if (!file) return SK_OK; /* missing (or unreadable): the read reports it */
    bool ok = false;
    char *dir = realpath(g->base_dir, NULL);
    if (dir) ok = under(file, dir);
    free(dir);
    for (uint32_t i = 0; !ok && i < g->n_roots; i++) {
        if (!g->roots[i]) continue;
        char *r = realpath(g->roots[i], NULL);
        if (r) ok = under(file, r);
        free(r);
    }
    free(file);
    if (!ok)
        return fail(g, SK_ERR_INVALID_DATA,
                    "%s/uri: \"%s\" resolves (through a symbolic link) to a file outside the model's folder; refused "
                    "(sk_gltf_options.allowed_roots lists other folders)",
                    path, uri);
    return SK_OK;
#else
    (void)g;
    (void)full;
    (void)path;
    (void)uri;
    return SK_OK;
#endif
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
    TRY(check_contained(g, full, path, d));
    *out = full;
    return SK_OK;
}

/* Reads an external file through the sk_file_io; it stays until the load ends. */
static sk_result read_external(gl_ctx *g, const char *file, const char *path, const uint8_t **out, size_t *size) {
    gl_file *f = sk_arena_alloc(&g->tmp, sizeof *f);
    if (!f) return oom(g);
    sk_error e = {0};
    void *data = NULL;
    size_t n = 0;
    sk_result r = sk_file_read(g->io, file, g->max_bytes, g->alloc, &data, &n, &e);
    if (r != SK_OK) return fail(g, r, "%s/uri: %s", path, e.message);
    f->data = data;
    f->size = n;
    f->next = g->files;
    g->files = f;
    *out = data;
    *size = n;
    return SK_OK;
}

/* A buffer without uri: in a .glb, buffer 0 is the BIN chunk, which must be
 * there (the validator's BUFFER_MISSING_GLB_DATA otherwise). Any other such
 * buffer — in a .glb other than the first (§4.4.3.3: only buffers[0] may
 * refer to the BIN chunk), every one in a .gltf — is a placeholder with no
 * bytes, as glTF-Validator treats it: an error only when something reads it
 * (sk_gl_acc_available; a primitive then loads empty with missing_data, an
 * image without data and a warning). */
static sk_result buffer_without_uri(gl_ctx *g, uint32_t i, gl_buffer *b, const char *path) {
    if (!g->is_glb || i != 0) {
        b->unavailable = g->is_glb ? "it has no uri (and only buffer 0 of a .glb can be its BIN chunk)"
                                   : "it has no uri (and a .gltf file has no GLB BIN chunk)";
        b->unavailable_code = SK_ERR_INVALID_DATA;
        return SK_OK;
    }
    if (!g->has_bin)
        return fail(g, SK_ERR_INVALID_DATA, "%s: buffer has no uri and there is no GLB BIN chunk for it", path);
    if (g->bin_size < b->length)
        return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: %zu bytes declared but the GLB BIN chunk holds %zu", path,
                    b->length, g->bin_size);
    b->data = g->bin;
    return SK_OK;
}

/* Every buffer is checked up front: data: URIs are decoded, relative files
 * read (a missing or short file is an error), the GLB BIN chunk matched.
 * Buffers we cannot have — no uri (in a .gltf, or in a .glb other than the
 * first), or a network URI we refuse to fetch — are marked unavailable: an
 * error only if an accessor we read needs them (glTF-Validator likewise
 * accepts such files). */
sk_result sk_gl_load_buffers(gl_ctx *g) {
    g->buffers = tmp_alloc(g, g->n_buffers ? g->n_buffers : 1, sizeof *g->buffers);
    if (!g->buffers) return oom(g);
    char path[64];
    for (uint32_t i = 0; i < g->n_buffers; i++) {
        gl_buffer *b = &g->buffers[i];
        snprintf(path, sizeof path, "/buffers/%u", i);
        uint64_t len;
        TRY(sk_gl_req_uint(g, g->j_buffers[i], "byteLength", path, GL_MAX_OFFSET, &len));
        if (len < 1) return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: must be at least 1", path);
        if (len > g->max_bytes || len > SIZE_MAX)
            return fail(g, SK_ERR_LIMIT, "%s/byteLength: %llu bytes exceed the limit of %llu", path,
                        (unsigned long long)len, (unsigned long long)g->max_bytes);
        b->length = (size_t)len;
        const char *uri;
        TRY(sk_gl_opt_string(g, g->j_buffers[i], "uri", path, &uri));
        if (!uri) {
            TRY(buffer_without_uri(g, i, b, path));
        } else if (strncmp(uri, "data:", 5) == 0) {
            /* §3.6.1.1 allows application/octet-stream and application/gltf-buffer. */
            uint8_t *d = NULL;
            size_t dl = 0, ml = 0;
            const char *h = NULL;
            TRY(decode_data_uri(g, &g->tmp, uri, path, &d, &dl, &h, &ml));
            if (!((ml == 24 && memcmp(h, "application/octet-stream", 24) == 0) ||
                  (ml == 23 && memcmp(h, "application/gltf-buffer", 23) == 0)))
                return fail(g, SK_ERR_INVALID_DATA, "%s/uri: data URI media type \"%.*s\" is not a buffer type", path,
                            (int)(ml < 64 ? ml : 64), h);
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
            size_t got = 0;
            TRY(read_external(g, file, path, &b->data, &got));
            if (got < b->length)
                return fail(g, SK_ERR_INVALID_DATA, "%s/byteLength: %zu bytes declared but \"%s\" holds only %zu",
                            path, b->length, file, got);
        }
    }
    return SK_OK;
}

/* ---- images (§3.9.2 Images) ------------------------------------------------ */

/* Copies bytes into the asset (the image's data). */
static sk_result image_copy(gl_ctx *g, sk_image *img, const void *data, size_t size) {
    uint8_t *d = sk_arena_alloc_raw(asset_arena(g), size ? size : 1);
    if (!d) return oom(g);
    memcpy(d, data, size);
    img->data = d;
    img->size = size;
    return SK_OK;
}

/* Every image keeps what the file says (name, MIME type, uri) and, unless
 * opts->skip_image_data, its encoded bytes: from a bufferView, a data: URI
 * or a relative file read through the sk_file_io. Not an error: an image in
 * a buffer that has no data (a warning says why), or at a URL (never
 * fetched): data is NULL. */
sk_result sk_gl_load_images(gl_ctx *g) {
    sk_image *imgs = sk_asset_alloc(g->asset, (size_t)(g->n_images ? g->n_images : 1) * sizeof *imgs);
    if (!imgs) return oom(g);
    char path[64];
    for (uint32_t i = 0; i < g->n_images; i++) {
        const sk_jv *o = g->j_images[i];
        sk_image *img = &imgs[i];
        snprintf(path, sizeof path, "/images/%u", i);
        const char *name, *mime, *uri;
        int32_t view;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        TRY(sk_gl_opt_string(g, o, "mimeType", path, &mime));
        TRY(sk_gl_opt_string(g, o, "uri", path, &uri));
        TRY(sk_gl_opt_index(g, o, "bufferView", g->n_views, "bufferView", path, &view));
        if (uri && view >= 0) return fail(g, SK_ERR_INVALID_DATA, "%s: uri and bufferView are exclusive", path);
        if (!uri && view < 0) return fail(g, SK_ERR_INVALID_DATA, "%s: an image needs a uri or a bufferView", path);
        img->name = sk_asset_strdup(g->asset, name);
        img->mime_type = sk_asset_strdup(g->asset, mime);
        img->uri = "";
        if (!img->name || !img->mime_type) return oom(g);
        if (view >= 0) {
            /* §3.9.2: mimeType is required with a bufferView, and image data is
             * not vertex data (no byteStride). */
            if (!mime) return fail(g, SK_ERR_INVALID_DATA, "%s/mimeType: required with a bufferView", path);
            const gl_view *v = &g->views[view];
            if (v->stride)
                return fail(g, SK_ERR_INVALID_DATA, "%s/bufferView: bufferView %d has a byteStride (%u)", path, view,
                            v->stride);
            const gl_buffer *b = &g->buffers[v->buffer];
            if (g->skip_image_data) continue;
            if (!b->data) {
                sk_gl_warn(g, "%s/bufferView: bufferView %d is in buffer %u, which has no data: %s: the image has no "
                           "data", path, view, v->buffer, b->unavailable ? b->unavailable : "?");
                continue;
            }
            TRY(sk_gl_stream_ensure(g, b->data + v->offset, v->length));
            TRY(image_copy(g, img, b->data + v->offset, v->length));
        } else if (strncmp(uri, "data:", 5) == 0) {
            if (g->skip_image_data) continue;
            uint8_t *d = NULL;
            size_t dl = 0, ml = 0;
            const char *media = NULL;
            TRY(decode_data_uri(g, asset_arena(g), uri, path, &d, &dl, &media, &ml));
            img->data = d;
            img->size = dl;
            if (!mime && ml) {
                char *m = sk_asset_alloc(g->asset, ml + 1);
                if (!m) return oom(g);
                memcpy(m, media, ml);
                img->mime_type = m;
            }
        } else {
            if (!(img->uri = sk_asset_strdup(g->asset, uri))) return oom(g);
            if (g->skip_image_data) continue;
            char *file = NULL;
            sk_result r = resolve_file_uri(g, uri, path, &file);
            if (r == SK_ERR_UNSUPPORTED) continue; /* a URL: kept, never fetched */
            if (r != SK_OK) return r;
            sk_error e = {0};
            void *data = NULL;
            size_t n = 0;
            r = sk_file_read(g->io, file, g->max_bytes, g->alloc, &data, &n, &e);
            if (r != SK_OK) return fail(g, r, "%s/uri: %s", path, e.message);
            r = image_copy(g, img, data, n);
            sk_file_release(g->io, g->alloc, data, n);
            if (r != SK_OK) return r;
        }
    }
    g->asset->images = imgs;
    g->asset->image_count = g->n_images;
    return SK_OK;
}

/* ---- container (§4 GLB File Format Specification) ------------------------ */


sk_result sk_gl_parse_glb(gl_ctx *g, const uint8_t *d, size_t size, const char **json, size_t *json_len) {
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
