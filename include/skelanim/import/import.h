/* skelanim — importing through assimp: FBX, COLLADA and the other skinned,
 * animated formats the Open Asset Import Library reads, into the same
 * sk_asset as the glTF reader (core/asset.h). Lives in its own library,
 * libskelanim_import, which links libskelanim and libassimp (and, through
 * assimp, the C++ runtime); nothing else of skelanim depends on it.
 *
 * What is converted: every node as a joint (depth-first, parent before
 * child; node_to_joint is the identity), its local transform as the rest
 * pose; per node one mesh whose primitives are the node's assimp meshes
 * (triangles, lines or points; positions, normals, TEXCOORD_0 with v
 * flipped to glTF's top-left origin, indices) and one skin holding the
 * bones of those meshes (joints: the nodes the bones name; inverse binds:
 * the bones' offset matrices); up to 8 influences per vertex (more: the 8
 * largest kept and renormalised to sum 1, with a warning); every animation
 * as a clip with its keys as stored (times: ticks / ticks per second,
 * 25 ticks per second when the file gives none, with a warning; separate
 * translation, rotation and scale tracks, LINEAR); materials' base colour
 * (base colour, else diffuse colour; alpha from opacity) and base-colour
 * or diffuse texture (embedded: the encoded bytes; external: the path as
 * the file writes it, and sk_import_file reads the image from the model's
 * folder — a path resolving outside it, a missing file or one over 256 MiB
 * is not read, the image keeps only its uri and a warning says why). Not
 * converted (a warning names each kind
 * once): morph targets and morph animations, cameras, lights, vertex
 * colours, tangents, UV sets past the first. docs/import.md says what
 * assimp changes on the way (pivots, unit scale, axes) and what is known
 * not to load. */
#ifndef SKELANIM_IMPORT_H
#define SKELANIM_IMPORT_H

#include "skelanim/core/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A warning (sk_import_options.warning): what loads but changed on the way
 * (influences dropped, a channel naming no node, a default tick rate). */
typedef void (*sk_import_warning_fn)(void *user, const char *message);

typedef struct sk_import_options {
    const sk_allocator *allocator; /* NULL: the C library */
    sk_import_warning_fn warning;  /* NULL: no warnings */
    void *warning_user;
    /* Limits (0: the default). More is refused with SK_ERR_LIMIT. */
    uint32_t max_nodes;            /* default and cap SK_MAX_JOINTS */
    uint32_t max_vertices;         /* per mesh; default 16777216 */
    /* true: keep assimp's FBX pivot helper nodes ("NAME_$AssimpFbx$_Rotation"
     * and the like) as joints of their own. Default false: assimp folds each
     * node's pivots, pre- and post-rotations into its one transform, so a
     * joint is a node of the file with its own name. */
    bool preserve_fbx_pivots;
} sk_import_options;

/* Imports a file through assimp. The format is assimp's choice (by
 * extension and content). Errors: SK_ERR_PARSE "PATH: assimp: MESSAGE"
 * when assimp refuses the file (a corrupt or truncated file gives this,
 * never a crash of ours), SK_ERR_INVALID_DATA naming the place for what
 * assimp returned but skelanim cannot use ("PATH: meshes/2 'Body': bone
 * 'Hand' names no node"), SK_ERR_LIMIT, SK_ERR_OUT_OF_MEMORY. *out is set
 * only on success (owned by the caller: sk_asset_destroy), and it passes
 * sk_asset_validate.
 * A file that makes assimp itself crash or hang takes the calling process
 * with it: parse untrusted files in a child process (docs/import.md).
 * Thread safety: assimp keeps its last error message in one string per
 * process, written by every failing import: calls from several threads at
 * once must be serialised by the caller. */
SK_API sk_result sk_import_file(const char *path, const sk_import_options *opts, sk_asset **out, sk_error *err);

/* The same from memory. hint: the format's file extension without the dot
 * ("fbx", "dae"), or NULL/"" to let assimp guess from the content. Files the
 * model names (external textures, COLLADA's separate parts) are not read;
 * "what" names the data in messages (NULL: "memory"). */
SK_API sk_result sk_import_memory(const void *data, size_t size, const char *hint, const char *what,
                                  const sk_import_options *opts, sk_asset **out, sk_error *err);

/* The extensions this assimp reads, as assimp lists them ("*.3d;*.3ds;...").
 * Writes at most cap bytes including the terminating NUL into buf (may be
 * NULL with cap 0) and returns the length of the whole list without the NUL. */
SK_API size_t sk_import_extensions(char *buf, size_t cap);

/* True when assimp has a reader for this file name's extension
 * (case-insensitive; "model.FBX" -> true). */
SK_API bool sk_import_can_read(const char *path);

/* assimp's version as major.minor.patch (e.g. "5.2.5") into buf; returns buf. */
SK_API const char *sk_import_assimp_version(char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
