/* glTF reader, entry points (gltf.h): sk_gltf_load_file and
 * sk_gltf_load_memory run the load in order — container and JSON
 * (gltf_container.c), buffer views and accessors (gltf_accessor.c),
 * looks, meshes, nodes, skeleton, skins and scenes (gltf_document.c),
 * animations (gltf_animation.c). Calls go one way: this file calls the
 * others, they call gltf_accessor.c and gltf_container.c, and
 * gltf_container.c calls none of them. */
#include "io/file_internal.h"
#include "io/gltf_internal.h"
#include "io/json_internal.h"

#include <string.h>

static sk_result load_all(gl_ctx *g, const void *data, size_t size) {
    const uint8_t *d = data;
    const char *json = data;
    size_t json_len = size;
    if (size == 0) return fail(g, SK_ERR_PARSE, "empty file");
    if (g->file) /* a streamed .glb (sk_gltf_load_file_streamed): data is its JSON chunk */
        g->is_glb = g->has_bin = true;
    else if (size >= 4 && rd_u32(d) == GLB_MAGIC) {
        g->is_glb = true;
        TRY(sk_gl_parse_glb(g, d, size, &json, &json_len));
    }
    /* glTF JSON is UTF-8 without a byte order mark (§3.1 / §4.4.3.2). */
    if (json_len >= 3 && memcmp(json, "\xEF\xBB\xBF", 3) == 0)
        return fail(g, SK_ERR_PARSE, "JSON starts with a byte order mark, which glTF does not allow");
    /* The document (from g->alloc) lives until the load returns. */
    size_t at = 0;
    const char *what = "";
    sk_result pr = sk_json_read(json, json_len, g->alloc, &g->doc, &at, &what);
    if (pr == SK_ERR_OUT_OF_MEMORY)
        return fail(g, pr, "JSON: out of memory building the parse tree of %zu bytes", json_len);
    if (pr != SK_OK) return fail(g, pr, "JSON syntax error near byte %zu: %s", at, what);
    g->root = g->doc.root;
    if (!j_is_object(g->root)) return fail(g, SK_ERR_INVALID_DATA, "/: the JSON root is not an object");
    TRY(sk_gl_check_asset(g));
    const sk_jv *ext = j_get(g->root, "extensions");
    if (ext && !j_is_object(ext)) return fail(g, SK_ERR_INVALID_DATA, "/extensions: expected an object");
    for (const sk_jv *c = ext ? j_child(ext) : NULL; c; c = j_next(c))
        if (!j_is_object(c))
            return fail(g, SK_ERR_INVALID_DATA, "/extensions/%s: expected an object", c->key ? c->key : "?");
    /* Top-level arrays: each must be an array of objects (we type-check the
     * ones we do not read too; cheap and it catches broken files early). */
    const sk_jv **cameras;
    TRY(sk_gl_collection(g, "cameras", &cameras, &g->n_cameras));
    TRY(sk_gl_collection(g, "images", &g->j_images, &g->n_images));
    TRY(sk_gl_collection(g, "samplers", &g->j_samplers, &g->n_samplers));
    TRY(sk_gl_collection(g, "textures", &g->j_textures, &g->n_textures));
    TRY(sk_gl_collection(g, "buffers", &g->j_buffers, &g->n_buffers));
    TRY(sk_gl_collection(g, "bufferViews", &g->j_views, &g->n_views));
    TRY(sk_gl_collection(g, "accessors", &g->j_accessors, &g->n_accessors));
    TRY(sk_gl_collection(g, "nodes", &g->j_nodes, &g->n_nodes));
    TRY(sk_gl_collection(g, "meshes", &g->j_meshes, &g->n_meshes));
    TRY(sk_gl_collection(g, "skins", &g->j_skins, &g->n_skins));
    TRY(sk_gl_collection(g, "animations", &g->j_anims, &g->n_anims));
    TRY(sk_gl_collection(g, "scenes", &g->j_scenes, &g->n_scenes));
    TRY(sk_gl_collection(g, "materials", &g->j_materials, &g->n_materials));
    if (g->n_nodes > SK_MAX_JOINTS)
        return fail(g, SK_ERR_LIMIT, "/nodes: %u nodes exceed the limit of %u", g->n_nodes, SK_MAX_JOINTS);
    if (g->file) TRY(sk_gl_stream_bin(g));
    TRY(sk_gl_load_buffers(g));
    TRY(sk_gl_load_views(g));
    TRY(sk_gl_load_accessors(g));
    TRY(sk_gl_load_images(g));
    TRY(sk_gl_load_looks(g));
    TRY(sk_gl_load_meshes(g));
    TRY(sk_gl_load_nodes(g));
    TRY(sk_gl_build_skeleton(g));
    TRY(sk_gl_load_skins(g));
    TRY(sk_gl_load_scenes(g));
    TRY(sk_gl_load_animations(g));
    TRY(sk_gl_acc_check_pending(g)); /* floats no step has read (or checked) yet */
    TRY(sk_gl_check_world_range(g));
    return SK_OK;
}

/* A streamed .glb (sk_gltf_load_file_streamed): the open file, its size,
 * where its BIN chunk's data starts and how long it is. */
typedef struct gl_stream_src {
    const sk_file_handle *file;
    uint64_t bin_at;
    size_t bin_size;
    bool any_share; /* (stream_min 0) */
} gl_stream_src;

/* data/size: the whole input, or a streamed .glb's JSON chunk. */
static sk_result load_input(const void *data, size_t size, uint64_t input_bytes, const gl_stream_src *stream,
                            const char *base_dir, const sk_gltf_options *opts, sk_asset **out,
                            sk_gltf_stream_stats *stats, sk_error *err) {
    sk_gltf_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!opts) opts = &defaults;
    gl_ctx g;
    memset(&g, 0, sizeof g);
    g.alloc = sk_allocator_or_default(&opts->allocator);
    g.err = err;
    g.base_dir = base_dir;
    g.io = &opts->file_io;
    g.skip_image_data = opts->skip_image_data;
    g.max_bytes = opts->max_file_bytes ? opts->max_file_bytes : GL_DEFAULT_MAX_BYTES;
    g.max_decoded = opts->max_decoded_bytes; /* 0: the default, set once the buffers are known */
    g.input_bytes = input_bytes;
    g.warn = opts->warning;
    g.warn_user = opts->warning_user;
    g.roots = opts->allowed_roots;
    g.n_roots = opts->allowed_roots ? opts->allowed_root_count : 0;
    if (stream)
        g.file = stream->file, g.bin_at = stream->bin_at, g.bin_size = stream->bin_size,
        g.stream_any_share = stream->any_share;
    if (input_bytes > g.max_bytes)
        return sk_error_set(err, SK_ERR_LIMIT, "input of %llu bytes exceeds the limit of %llu",
                            (unsigned long long)input_bytes, (unsigned long long)g.max_bytes);
    sk_arena_init(&g.tmp, g.alloc);
    sk_arena_init(&g.chan, g.alloc);
    sk_result r = sk_asset_create_empty(g.alloc, &g.asset, err);
    if (r == SK_OK) r = load_all(&g, data ? data : "", size);
    for (uint32_t i = 0; stats && i < g.n_lazy; i++)
        stats->ranges++, stats->filled += g.lazy[i].filled, stats->bytes += g.lazy[i].len;
    sk_json_doc_free(&g.doc);
    for (gl_file *f = g.files; f; f = f->next) sk_file_release(g.io, g.alloc, f->data, f->size);
    if (g.bin_pages.base) sk_file_pages_free(&g.bin_pages);
    else if (g.bin_mem) sk_free(g.alloc, g.bin_mem, g.bin_mem_size);
    sk_arena_release(&g.tmp);
    sk_arena_release(&g.chan);
    if (r != SK_OK) {
        sk_asset_destroy(g.asset);
        return r;
    }
    *out = g.asset;
    return SK_OK;
}

sk_result sk_gltf_load_memory(const void *data, size_t size, const char *base_dir, const sk_gltf_options *opts,
                              sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_memory: out is NULL");
    *out = NULL;
    if (!data && size) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_memory: data is NULL");
    return load_input(data, size, size, NULL, base_dir, opts, out, NULL, err);
}

/* Where a .glb's JSON and BIN chunks lie, when the file is a GLB container
 * that sk_gl_parse_glb accepts, with a JSON chunk and a non-empty BIN chunk
 * (the same checks); false otherwise (the whole file is then read and
 * checked as before, for the same messages). */
static bool glb_layout(const sk_file_handle *h, uint32_t *json_len, uint64_t *bin_at, uint32_t *bin_len) {
    uint8_t hd[20], ch[8];
    if (h->size < 28 || !sk_file_pread(h, hd, sizeof hd, 0)) return false;
    /* every sum in 64 bits: a header's length under its chunks' must not wrap around */
    uint64_t length = rd_u32(hd + 8), jlen = rd_u32(hd + 12);
    if (rd_u32(hd) != GLB_MAGIC || rd_u32(hd + 4) != 2 || length > h->size || length < 28 || length % 4 ||
        rd_u32(hd + 16) != GLB_JSON || jlen == 0 || jlen % 4 || 20u + jlen > length)
        return false;
    uint64_t at = 20u + jlen;
    if (at + 8u > length || !sk_file_pread(h, ch, sizeof ch, at)) return false;
    uint64_t blen = rd_u32(ch);
    if (rd_u32(ch + 4) != GLB_BIN || blen == 0 || blen % 4 || at + 8u + blen > length) return false;
    *bin_at = at + 8;
    *bin_len = (uint32_t)blen;
    at += 8u + blen;
    for (int k = 0; at < length; k++) { /* chunks after BIN: ignored, if well formed */
        if (k >= 64 || at + 8u > length || !sk_file_pread(h, ch, sizeof ch, at)) return false;
        uint64_t clen = rd_u32(ch);
        uint32_t ctype = rd_u32(ch + 4);
        if (at + 8u + clen > length || clen % 4 || ctype == GLB_JSON || ctype == GLB_BIN) return false;
        at += 8u + clen;
    }
    *json_len = (uint32_t)jlen;
    return true;
}

sk_result sk_gltf_load_file(const char *path, const sk_gltf_options *opts, sk_asset **out, sk_error *err) {
    return sk_gltf_load_file_streamed(path, opts, SK_GLTF_STREAM_MIN, out, NULL, err);
}

sk_result sk_gltf_load_file_streamed(const char *path, const sk_gltf_options *opts, uint64_t stream_min,
                                     sk_asset **out, sk_gltf_stream_stats *stats, sk_error *err) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_file: out is NULL");
    *out = NULL;
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_gltf_load_file: path is NULL");
    uint64_t max = opts && opts->max_file_bytes ? opts->max_file_bytes : GL_DEFAULT_MAX_BYTES;
    const sk_allocator *alloc = sk_allocator_or_default(opts ? &opts->allocator : NULL);
    const sk_file_io *io = opts ? &opts->file_io : NULL;
    /* The folder of the file resolves relative URIs. */
    size_t plen = strlen(path);
    char *dir = sk_alloc(alloc, plen + 2);
    if (!dir) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    const char *slash = strrchr(path, '/');
    if (slash) memcpy(dir, path, (size_t)(slash - path) + (slash == path ? 1 : 0));
    else dir[0] = '.';
    sk_error e = {0};
    sk_result r;
    /* A large .glb with the default file system: its JSON now, its BIN chunk
     * as the load needs it (gltf_stream.c). */
    sk_file_handle fh;
    r = sk_file_open_read(io, path, max, &fh, err); /* its message starts with the path */
    if (r != SK_OK && r != SK_ERR_UNSUPPORTED) {
        sk_free(alloc, dir, plen + 2);
        return r;
    }
    uint32_t jlen = 0, blen = 0;
    uint64_t bin_at = 0;
    if (r == SK_OK && fh.size >= stream_min && glb_layout(&fh, &jlen, &bin_at, &blen)) {
        char *json = sk_realloc_raw(alloc, NULL, 0, jlen);
        if (!json) r = sk_error_set(&e, SK_ERR_OUT_OF_MEMORY, "out of memory for the %u-byte JSON chunk", jlen);
        else if (!sk_file_pread(&fh, json, jlen, 20))
            r = sk_error_set(&e, SK_ERR_IO, "the file changed while it was being read (its JSON chunk is shorter)");
        else {
            gl_stream_src src = {&fh, bin_at, blen, stream_min == 0};
            r = load_input(json, jlen, fh.size, &src, dir, opts, out, stats, &e);
        }
        if (json) sk_free(alloc, json, jlen);
        sk_file_close(&fh);
        sk_free(alloc, dir, plen + 2);
        if (r != SK_OK) return sk_error_set(err, r, "%s: %s", path, e.message);
        return SK_OK;
    }
    void *buf = NULL;
    size_t size = 0;
    sk_file_scratch scratch;
    /* the file's bytes are needed only while the load runs */
    if (r == SK_OK) { /* (the file is open: read it from there) */
        r = sk_file_read_handle(&fh, path, alloc, &buf, &size, &scratch, err); /* its message starts with the path */
        sk_file_close(&fh);
        io = NULL; /* (what it read pairs with the default release) */
    } else
        r = sk_file_read_scratch(io, path, max, alloc, &buf, &size, &scratch, err);
    if (r != SK_OK) {
        sk_free(alloc, dir, plen + 2);
        return r;
    }
    r = sk_gltf_load_memory(buf, size, dir, opts, out, &e);
    sk_free(alloc, dir, plen + 2);
    sk_file_release_scratch(io, alloc, buf, size, &scratch);
    if (r != SK_OK) return sk_error_set(err, r, "%s: %s", path, e.message);
    return SK_OK;
}
