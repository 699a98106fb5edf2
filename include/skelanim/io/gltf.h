/* skelanim — glTF 2.0 reader (.gltf with external or data: buffers, .glb) and
 * .glb writer. */
#ifndef SKELANIM_GLTF_H
#define SKELANIM_GLTF_H

#include "skelanim/core/asset.h"
#include "skelanim/io/file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest translation length, scale or vertex distance (in the file's
 * units) that any node's world transform, skinning matrix or vertex can reach
 * when sampled at any time: the reader refuses files beyond it (bounded in
 * double from the rest transforms, every translation and scale key, the
 * inverse binds and the positions), so finite input never gives infinite
 * matrices or NaN vertices. */
#define SK_GLTF_MAX_WORLD 1e15

/* A warning of the reader (sk_gltf_options.warning): what loads but is
 * probably not what the file's author meant. message names the JSON path
 * ("/skins/0/inverseBindMatrices: ..."), not the file. */
typedef void (*sk_gltf_warning_fn)(void *user, const char *message);

/* A zeroed struct (or NULL) gives the defaults. */
typedef struct sk_gltf_options {
    sk_allocator allocator;       /* zero = C library */
    uint64_t max_file_bytes;      /* 0 = 1 GiB: larger files and buffers are refused */
    sk_file_io file_io;           /* the file itself (sk_gltf_load_file), external buffers and
                                     images; zero = stdio, regular files only (skelanim/io/file.h) */
    bool skip_image_data;         /* true: images keep their name, MIME type and uri but no bytes
                                     are read or copied (sk_image.data NULL) */
    uint64_t max_decoded_bytes;   /* bytes decoded from accessors in all (as floats / uint32);
                                     0 = 64 MiB + 64 x (the file's bytes + its buffers' bytes), at most
                                     8 x the file limit. An accessor without a bufferView is zeros:
                                     it counts like any other, so a 257-byte file cannot decode
                                     gigabytes; vertex attributes sharing one accessor share one
                                     decoded array. Beyond: SK_ERR_LIMIT naming the accessor. */
    /* With the default file system (file_io.read NULL), an external buffer or
     * image must resolve, symbolic links followed (realpath), inside the
     * model's folder: a relative URI that is a link to a file elsewhere is
     * refused before it is read. These folders are allowed too (NULL entries
     * are skipped). With a read callback the callback decides. */
    const char *const *allowed_roots;
    uint32_t allowed_root_count;
    /* Called (when set) for what loads but is likely broken: animation key
     * times from an accessor without a bufferView (all 0: the clip is a
     * still pose at t = 0), inverse bind matrices that are zero-filled or
     * singular (they send the skinned vertices to a point, a line or a
     * plane). NULL: no warnings. */
    sk_gltf_warning_fn warning;
    void *warning_user;
} sk_gltf_options;

/* Loads a .gltf or .glb (detected by content). External buffer URIs are
 * resolved relative to the file's folder and read through opts->file_io;
 * absolute paths, "..", and non-file schemes are refused, and with the
 * default file system so is a file that resolves outside the folder
 * (allowed_roots). Every structural
 * error that could lead to an out-of-bounds read is rejected with a message
 * naming the file once and then the JSON path, e.g. "model.glb:
 * /accessors/3/count: 900 elements of 12 bytes exceed bufferView 2 (4096
 * bytes)"; a file that cannot be read gives "model.glb: cannot open: ...".
 *
 * What loads: every file the Khronos glTF validator accepts (its corpus is a
 * test). Objects nothing reads never fail a load: an accessor of a type or
 * component type we do not know (refused, with its path, only if something
 * we read uses it), a buffer without data (one without uri: every such
 * buffer of a .gltf, and of a .glb every one but buffer 0, which is its BIN
 * chunk and must be there), a buffer at a URL (never fetched). A primitive
 * whose vertex data is not in the file (an accessor it reads lies in such a
 * buffer) is loaded empty, with sk_primitive.missing_data saying why, whether
 * or not a node uses its mesh: the skeleton, skins, scenes and clips do not
 * depend on it, and a caller that needs the geometry sees at once what is
 * missing. An image in such a buffer has no data (a warning says why).
 * Refused: what would be read wrong or not at all — clip or inverse-bind
 * data that is not in the file ("/skins/0/inverseBindMatrices: accessor 5
 * needs buffer 1, which has no data: it has no uri (...)"), anything past the
 * end of its buffer, a required extension we do not implement, a file whose
 * minVersion is above 2.0.
 *
 * Memory: everything comes from opts->allocator, the parsed JSON text
 * included (one block, freed before the call returns). The JSON must be
 * RFC 8259 JSON (no leading zeros, no control characters inside strings, no
 * whitespace but space, tab, CR and LF): anything else is a syntax error with
 * its byte offset; nesting is limited to 1000 levels and a number to 63
 * characters (SK_ERR_LIMIT). With the default
 * file system (file_io.read NULL) and the default allocator on Linux, a
 * file of 1 MiB or more is read into pages of its own (anonymous memory,
 * huge pages advised), unmapped before the call returns: the file's bytes
 * are needed only while it runs, and nothing the asset keeps is in them.
 * With an allocator of the caller's, the file goes through it as well. */
SK_API sk_result sk_gltf_load_file(const char *path, const sk_gltf_options *opts,
                                   sk_asset **out, sk_error *err);
/* Same from memory. base_dir resolves external URIs (NULL: only data: URIs and
 * the GLB chunk are available). */
SK_API sk_result sk_gltf_load_memory(const void *data, size_t size, const char *base_dir,
                                     const sk_gltf_options *opts, sk_asset **out, sk_error *err);

/* Options of the .glb writer; a zeroed struct (or NULL) gives the defaults. */
typedef struct sk_glb_write_options {
    sk_file_io file_io; /* sk_glb_write_file_ex only; zero = stdio */
    /* Told, once per item, of everything the file will not hold as the asset
     * does (no silent loss): a primitive without vertices and a
     * mesh left with none (nodes using it are written without it), weight
     * tracks aimed at such a mesh, a clip left with no channel, a base-colour
     * texture mapped with a UV set other than TEXCOORD_0, an image with
     * neither bytes of a known type nor a uri (left out), and an image kept
     * by its uri (the .glb then refers to a file beside it and is not
     * self-contained). The message names the asset item ("mesh 2 \"Body\"
     * primitive 0: ..."). NULL: nothing is said. */
    sk_gltf_warning_fn warning;
    void *warning_user;
} sk_glb_write_options;

/* Writes the asset as a self-contained .glb (nodes, meshes, skins, clips)
 * through io's write (NULL or a zeroed struct: stdio). Error messages start
 * with the path. The bytes are read back with sk_gltf_load_memory before
 * they are returned or written: a file the reader would refuse is never
 * written (SK_ERR_INVALID_ARGUMENT, "the glTF reader would refuse the file:
 * " and the reader's message). What cannot be written is left out as listed above
 * (sk_glb_write_options.warning); use the _ex forms to be told. */
SK_API sk_result sk_glb_write_file(const sk_asset *asset, const char *path, const sk_file_io *io, sk_error *err);
/* Same into memory allocated with the asset's allocator; free with sk_free(alloc, *out, *size). */
SK_API sk_result sk_glb_write_memory(const sk_asset *asset, void **out, size_t *size, sk_error *err);
/* sk_glb_write_file with options (opts->file_io for the file, opts->warning
 * told of what is left out). */
SK_API sk_result sk_glb_write_file_ex(const sk_asset *asset, const char *path, const sk_glb_write_options *opts,
                                      sk_error *err);
/* sk_glb_write_memory with options (opts->warning told of what is left out). */
SK_API sk_result sk_glb_write_memory_ex(const sk_asset *asset, const sk_glb_write_options *opts, void **out,
                                        size_t *size, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
