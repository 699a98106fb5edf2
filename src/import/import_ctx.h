/* skelanim — the importer's conversion state, shared by its sources
 * (import_convert.c: nodes, meshes, skins; import_clips.c: animations;
 * import_looks.c: materials and textures). Private to src/import. */
#ifndef SKELANIM_IMPORT_CTX_H
#define SKELANIM_IMPORT_CTX_H

#include "import/import_internal.h"

#include <assimp/scene.h>

typedef struct sk_import_name {
    const char *name;
    uint32_t joint;
} sk_import_name;

typedef struct sk_import_ctx {
    const struct aiScene *scene;
    const char *what;
    const sk_import_options *opts;
    const sk_allocator *alloc;
    sk_error *err;
    sk_asset *asset;
    uint32_t node_count;
    const struct aiNode **nodes;   /* joint -> node */
    size_t nodes_cap;
    sk_import_name *by_name;       /* sorted by name, then joint */
    uint32_t warned;               /* SK_IMPORT_WARN_* already given */
} sk_import_ctx;

enum {
    SK_IMPORT_WARN_MORPH = 1u << 0,
    SK_IMPORT_WARN_COLOURS = 1u << 1,
    SK_IMPORT_WARN_UVSETS = 1u << 2,
    SK_IMPORT_WARN_MORPH_ANIM = 1u << 3,
    SK_IMPORT_WARN_DECOMPOSE = 1u << 4,
    SK_IMPORT_WARN_CAMERAS = 1u << 5
};

void sk_import_warn(sk_import_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A warning given once per import for a kind of loss (SK_IMPORT_WARN_*). */
void sk_import_warn_once(sk_import_ctx *c, uint32_t kind, const char *message);

/* assimp's string as a C string: at most MAXLEN - 1 bytes, stopping at the
 * length or a NUL, into buf (MAXLEN bytes). */
const char *sk_import_str(const struct aiString *s, char *buf);

/* The joint of the first node with this name, or -1. */
int32_t sk_import_find(const sk_import_ctx *c, const char *name);

/* aiMatrix4x4 (row-major) to sk_mat4 (column-major). */
sk_mat4 sk_import_mat4(const struct aiMatrix4x4 *m);
bool sk_import_mat4_finite(const sk_mat4 *m);

sk_result sk_import_clips(sk_import_ctx *c);
sk_result sk_import_looks(sk_import_ctx *c);

#endif
