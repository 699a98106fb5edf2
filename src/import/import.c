/* skelanim — reading through assimp (its C API) and handing the scene to the
 * conversion (import_convert.c). The post-processing asked of assimp is
 * chosen in import_flags(); docs/import.md says why each is (not) there. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include "import/import_internal.h"

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/version.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SK_IMPORT_MAX_IMAGE_BYTES (256u << 20)

static unsigned int import_flags(void) {
    /* Triangulate: sk_primitive holds points, lines or triangles.
     * SortByPType: one primitive type per mesh.
     * JoinIdenticalVertices: indexed geometry (FBX and COLLADA give a
     *   vertex per face corner).
     * FlipUVs: glTF's texture origin (top left).
     * ValidateDataStructure: assimp's own check of what it returns (indices,
     *   bone weights, animation channels) before ours.
     * Not LimitBoneWeights (it keeps 4; we keep 8, import_convert.c), not
     * PreTransformVertices, OptimizeGraph or anything else that changes the
     * node hierarchy, no GlobalScale: units and axes are the file's. */
    return aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_JoinIdenticalVertices | aiProcess_FlipUVs |
           aiProcess_ValidateDataStructure;
}

static struct aiPropertyStore *import_properties(const sk_import_options *opts) {
    struct aiPropertyStore *ps = aiCreatePropertyStore();
    if (!ps) return NULL;
    aiSetImportPropertyInteger(ps, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, opts && opts->preserve_fbx_pivots ? 1 : 0);
    /* Points and lines stay (SortByPType removes none). */
    aiSetImportPropertyInteger(ps, AI_CONFIG_PP_SBP_REMOVE, 0);
    return ps;
}

static sk_result finish(const struct aiScene *sc, const char *what, const sk_import_options *opts, sk_asset **out,
                        sk_error *err) {
    if (!sc) {
        const char *m = aiGetErrorString();
        return sk_error_set(err, SK_ERR_PARSE, "%s: assimp: %s", what, m && m[0] ? m : "cannot read the file");
    }
    if (sc->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
        aiReleaseImport(sc);
        return sk_error_set(err, SK_ERR_PARSE, "%s: assimp: the scene is incomplete", what);
    }
    sk_result r = sk_import_convert_scene(sc, what, opts, out, err);
    aiReleaseImport(sc);
    return r;
}

static void warn_image(const sk_import_options *opts, const char *fmt, ...) {
    if (!opts || !opts->warning) return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    opts->warning(opts->warning_user, msg);
}

/* The external images the model names (img->uri, no data): read from the
 * model's folder, as the glTF reader reads a .gltf's images. A path that
 * resolves (symbolic links followed) outside that folder, a missing or
 * unreadable file, or one over SK_IMPORT_MAX_IMAGE_BYTES is not read: the
 * image keeps its uri and a warning says why. */
static sk_result read_external_images(sk_asset *a, const char *path, const sk_import_options *opts, sk_error *err) {
    char dir[PATH_MAX], real_dir[PATH_MAX], cand[2 * PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    if (!realpath(dir, real_dir)) return SK_OK;
    size_t dl = strlen(real_dir);
    for (uint32_t i = 0; i < a->image_count; i++) {
        sk_image *img = (sk_image *)&a->images[i]; /* the importer's own asset */
        if (img->data || !img->uri || !img->uri[0]) continue;
        snprintf(cand, sizeof cand, "%s/%s", dir, img->uri);
        if (!realpath(cand, real)) {
            warn_image(opts, "%s: images/%u: '%.200s' cannot be opened: the image is not loaded", path, i, img->uri);
            continue;
        }
        if (strncmp(real, real_dir, dl) != 0 || real[dl] != '/') {
            warn_image(opts, "%s: images/%u: '%.200s' lies outside the model's folder: not read", path, i, img->uri);
            continue;
        }
        FILE *f = fopen(real, "rb");
        long n = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
        if (!f || n <= 0 || (unsigned long)n > SK_IMPORT_MAX_IMAGE_BYTES || fseek(f, 0, SEEK_SET) != 0) {
            if (f) fclose(f);
            warn_image(opts, "%s: images/%u: '%.200s' is not a readable file of at most %u bytes: not loaded", path, i,
                       img->uri, SK_IMPORT_MAX_IMAGE_BYTES);
            continue;
        }
        uint8_t *d = sk_asset_alloc(a, (size_t)n);
        if (!d) {
            fclose(f);
            return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        }
        size_t got = fread(d, 1, (size_t)n, f);
        fclose(f);
        if (got != (size_t)n) {
            warn_image(opts, "%s: images/%u: '%.200s' could not be read whole: not loaded", path, i, img->uri);
            continue;
        }
        img->data = d;
        img->size = (size_t)n;
        if (n >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) img->mime_type = "image/png";
        else if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) img->mime_type = "image/jpeg";
    }
    return SK_OK;
}

sk_result sk_import_file(const char *path, const sk_import_options *opts, sk_asset **out, sk_error *err) {
    if (!out || !path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_import_file: NULL %s", out ? "path" : "out");
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return sk_error_set(err, SK_ERR_IO, "%s: cannot open", path);
    fclose(f);
    struct aiPropertyStore *ps = import_properties(opts);
    if (!ps) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    const struct aiScene *sc = aiImportFileExWithProperties(path, import_flags(), NULL, ps);
    aiReleasePropertyStore(ps);
    sk_result r = finish(sc, path, opts, out, err);
    if (r == SK_OK) r = read_external_images(*out, path, opts, err);
    if (r != SK_OK) {
        sk_asset_destroy(*out);
        *out = NULL;
    }
    return r;
}

sk_result sk_import_memory(const void *data, size_t size, const char *hint, const char *what,
                           const sk_import_options *opts, sk_asset **out, sk_error *err) {
    if (!what) what = "memory";
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_import_memory: NULL out");
    *out = NULL;
    if (!data || !size) return sk_error_set(err, SK_ERR_PARSE, "%s: no data", what);
    if (size > 0xffffffffu) return sk_error_set(err, SK_ERR_LIMIT, "%s: %zu bytes (assimp reads up to 4 GiB)", what, size);
    struct aiPropertyStore *ps = import_properties(opts);
    if (!ps) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    const struct aiScene *sc = aiImportFileFromMemoryWithProperties(data, (unsigned int)size, import_flags(),
                                                                    hint ? hint : "", ps);
    aiReleasePropertyStore(ps);
    return finish(sc, what, opts, out, err);
}

size_t sk_import_extensions(char *buf, size_t cap) {
    struct aiString s;
    s.length = 0;
    s.data[0] = 0;
    aiGetExtensionList(&s);
    size_t n = s.length < MAXLEN ? s.length : MAXLEN - 1;
    if (buf && cap) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(buf, s.data, k);
        buf[k] = 0;
    }
    return n;
}

bool sk_import_can_read(const char *path) {
    if (!path) return false;
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || !dot[1]) return false;
    char ext[40];
    size_t n = strlen(dot);
    if (n >= sizeof ext) return false;
    for (size_t i = 0; i <= n; i++) ext[i] = (char)(dot[i] >= 'A' && dot[i] <= 'Z' ? dot[i] + 32 : dot[i]);
    return aiIsExtensionSupported(ext) != 0;
}

const char *sk_import_assimp_version(char *buf, size_t cap) {
    if (buf && cap) snprintf(buf, cap, "%u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    return buf;
}
