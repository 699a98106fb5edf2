/* skelanim — reading through assimp (its C API) and handing the scene to the
 * conversion (import_convert.c). The post-processing asked of assimp is
 * chosen in import_flags(); docs/import.md says why each is (not) there. */
#include "import/import_internal.h"

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/version.h>
#include <stdio.h>
#include <string.h>

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
    return finish(sc, path, opts, out, err);
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
