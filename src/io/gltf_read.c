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
    if (size >= 4 && rd_u32(d) == GLB_MAGIC) {
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
    g.io = &opts->file_io;
    g.skip_image_data = opts->skip_image_data;
    g.max_bytes = opts->max_file_bytes ? opts->max_file_bytes : GL_DEFAULT_MAX_BYTES;
    g.max_decoded = opts->max_decoded_bytes; /* 0: the default, set once the buffers are known */
    g.input_bytes = size;
    g.warn = opts->warning;
    g.warn_user = opts->warning_user;
    g.roots = opts->allowed_roots;
    g.n_roots = opts->allowed_roots ? opts->allowed_root_count : 0;
    if (size > g.max_bytes)
        return sk_error_set(err, SK_ERR_LIMIT, "input of %zu bytes exceeds the limit of %llu", size,
                            (unsigned long long)g.max_bytes);
    sk_arena_init(&g.tmp, g.alloc);
    sk_arena_init(&g.chan, g.alloc);
    sk_result r = sk_asset_create_empty(g.alloc, &g.asset, err);
    if (r == SK_OK) r = load_all(&g, data ? data : "", size);
    sk_json_doc_free(&g.doc);
    for (gl_file *f = g.files; f; f = f->next) sk_file_release(g.io, g.alloc, f->data, f->size);
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
    const sk_file_io *io = opts ? &opts->file_io : NULL;
    void *buf = NULL;
    size_t size = 0;
    sk_file_scratch scratch;
    /* the file's bytes are needed only while the load runs */
    sk_result r = sk_file_read_scratch(io, path, max, alloc, &buf, &size, &scratch, err); /* its message starts with the path */
    if (r != SK_OK) return r;
    /* The folder of the file resolves relative URIs. */
    size_t plen = strlen(path);
    char *dir = sk_alloc(alloc, plen + 2);
    if (!dir) {
        sk_file_release_scratch(io, alloc, buf, size, &scratch);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    const char *slash = strrchr(path, '/');
    if (slash) memcpy(dir, path, (size_t)(slash - path) + (slash == path ? 1 : 0));
    else dir[0] = '.';
    sk_error e = {0};
    r = sk_gltf_load_memory(buf, size, dir, opts, out, &e);
    sk_free(alloc, dir, plen + 2);
    sk_file_release_scratch(io, alloc, buf, size, &scratch);
    if (r != SK_OK) return sk_error_set(err, r, "%s: %s", path, e.message);
    return SK_OK;
}
