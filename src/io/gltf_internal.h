/* Private to the glTF reader (src/io/gltf_*.c). Not installed.
 *
 * The reader is split along its seams:
 *   gltf_container.c  GLB container, JSON parse, URIs (data:, percent-decoding,
 *                     external files through sk_file_io), buffers, images,
 *                     the JSON helpers below, and the public entry points;
 *   gltf_accessor.c   bufferViews, accessors (decoding, sparse, budgets);
 *   gltf_document.c   samplers, textures, materials, meshes, nodes, skeleton,
 *                     skins, scenes -> sk_asset;
 *   gltf_animation.c  animations -> clips.
 * Functions shared between them carry the sk_gl_ prefix (every external
 * symbol of the libraries starts with sk_). Section numbers in comments refer
 * to the glTF 2.0 specification (Khronos, 2.0.1). */
#ifndef SKELANIM_GLTF_INTERNAL_H
#define SKELANIM_GLTF_INTERNAL_H

#include "core/internal.h"
#include "io/file_internal.h"
#include "skelanim/io/file.h"
#include "skelanim/io/gltf.h"

#include "io/json_internal.h"

#include <math.h>

/* glTF component types (§3.6.2.2 "Accessor Data Types"). */
#define GL_BYTE 5120u
#define GL_UNSIGNED_BYTE 5121u
#define GL_SHORT 5122u
#define GL_UNSIGNED_SHORT 5123u
#define GL_UNSIGNED_INT 5125u
#define GL_FLOAT 5126u

#define GL_DEFAULT_MAX_BYTES ((uint64_t)1 << 30)
#define GLB_MAGIC 0x46546C67u /* "glTF" (§4.4.2) */
#define GLB_JSON 0x4E4F534Au  /* chunk types (§4.4.3.1) */
#define GLB_BIN 0x004E4942u
/* Byte offsets/lengths: exact in a JSON double and representable in size_t. */
#define GL_MAX_OFFSET ((double)(SIZE_MAX < 9007199254740991ull ? SIZE_MAX : 9007199254740991ull))

/* Decoding the same large accessor again and again (many primitives or
 * channels referring to it) must not exhaust memory: the total decoded is
 * limited to a multiple of the file size limit. */
#define GL_DECODE_BUDGET_FACTOR 8u
/* The default of sk_gltf_options.max_decoded_bytes (gltf.h): a base plus a
 * multiple of the bytes the file brought (the file and its buffers), so a
 * tiny file cannot make the reader decode gigabytes (zero-filled accessors
 * without a bufferView, or one bufferView read through many accessors). */
#define GL_DECODE_BASE ((uint64_t)64 << 20)
#define GL_DECODE_INPUT_FACTOR 64u

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
    const char *unknown;    /* why the accessor cannot be read (unknown type), or NULL */
    const float *shared;    /* decoded once into the asset's arena, shared by every vertex attribute using it */
    bool times_checked;     /* checked as animation key times (gltf_animation.c): once per accessor */
    bool finite_pending;    /* packed floats not yet checked for Inf/NaN: checked by the first reader of
                               the data (sk_gl_acc_available), by an animation channel's pass over
                               its keys, or at the end of the load (sk_gl_acc_check_pending) */
} gl_acc;

typedef struct gl_node {
    int32_t parent, mesh, skin;
    bool has_matrix, matrix_identity;
    sk_transform rest;
    const sk_jv *weights; /* node.weights or NULL */
} gl_node;

/* A file read through the sk_file_io, released when the load ends. */
typedef struct gl_file {
    struct gl_file *next;
    void *data;
    size_t size;
} gl_file;

/* A byte range of the BIN chunk that is read when needed (gltf_stream.c). */
typedef struct gl_range {
    size_t at, len;
    bool filled;
} gl_range;

struct sk_file_handle;

typedef struct gl_ctx {
    sk_arena tmp; /* scratch, released at the end */
    sk_arena chan; /* per animation channel, reset after each (keeps its memory hot) */
    const sk_allocator *alloc;
    sk_error *err;
    const char *base_dir;
    const sk_file_io *io;
    gl_file *files;    /* external files read so far */
    uint64_t max_bytes;
    const uint8_t *bin;
    size_t bin_size;
    bool has_bin, is_glb, quantization, skip_image_data;
    sk_json_doc doc; /* the JSON document (g->alloc), freed when the load ends */
    const sk_jv *root;
    const sk_jv **j_buffers, **j_views, **j_accessors, **j_nodes, **j_meshes, **j_skins,
        **j_anims, **j_scenes, **j_materials, **j_images, **j_samplers, **j_textures;
    uint32_t n_buffers, n_views, n_accessors, n_nodes, n_meshes, n_skins, n_anims, n_scenes,
        n_materials, n_cameras, n_images, n_samplers, n_textures;
    gl_buffer *buffers;
    gl_view *views;
    gl_acc *accs;
    gl_node *nodes;
    uint32_t *subtree; /* per joint: joints in its subtree (itself included) */
    uint32_t *root_joint; /* per joint: its root joint */
    uint64_t decoded;  /* bytes decoded from accessors so far (bounded by max_decoded) */
    uint64_t max_decoded; /* sk_gltf_options.max_decoded_bytes or its default */
    uint64_t input_bytes; /* the file and every buffer with data */
    sk_gltf_warning_fn warn; /* sk_gltf_options.warning, or NULL */
    void *warn_user;
    const char *const *roots; /* sk_gltf_options.allowed_roots */
    uint32_t n_roots;
    sk_asset *asset;
    /* Per joint, the largest translation length and scale component over
     * every key of its animated translation and scale tracks (the Hermite
     * bound for CUBICSPLINE), measured while each channel's keys are in hand
     * (gltf_animation.c) for gltf_limits.c; NULL when no clip has such keys. */
    double *anim_tb, *anim_sb;
    /* A .glb whose BIN chunk is read as it is needed (gltf_stream.c): the
     * open file and where the chunk's data starts in it (file NULL: the
     * whole input is in memory), the chunk's memory (g->alloc), and its
     * ranges that are read only when asked for, by position. */
    const struct sk_file_handle *file;
    uint64_t bin_at;
    bool stream_any_share; /* stream the key ranges even when they are not most of the chunk */
    uint8_t *bin_mem;
    size_t bin_mem_size;
    struct sk_file_scratch bin_pages; /* bin_mem in pages of its own (base NULL: from g->alloc) */
    gl_range *lazy;
    uint32_t n_lazy;
} gl_ctx;

/* Fills the caller's sk_error (if any) and returns the code. */
#define fail(g, ...) sk_error_set((g)->err, __VA_ARGS__)

#define TRY(expr)                           \
    do {                                    \
        sk_result try_r_ = (expr);          \
        if (try_r_ != SK_OK) return try_r_; \
    } while (0)

static inline sk_result oom(gl_ctx *g) { return fail(g, SK_ERR_OUT_OF_MEMORY, "out of memory"); }

/* Scratch memory released when the load ends (zero-filled). */
static inline void *tmp_alloc(gl_ctx *g, size_t n, size_t size) {
    size_t total;
    if (!sk_size_mul(n, size, &total)) return NULL;
    return sk_arena_alloc(&g->tmp, total);
}

static inline sk_arena *asset_arena(gl_ctx *g) { return &((sk_asset_internal *)g->asset->internal)->arena; }

static inline uint32_t rd_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* JSON paths for messages, built without printf (the reader makes one per
 * accessor, channel and node): head + the decimal u + tail (NULL: none),
 * truncated to cap; returns the length. */
static inline size_t gl_path(char *buf, size_t cap, const char *head, uint32_t u, const char *tail) {
    size_t n = 0;
    for (; *head && n + 1 < cap; head++) buf[n++] = *head;
    char d[10];
    int k = 0;
    do d[k++] = (char)('0' + u % 10u);
    while ((u /= 10u) != 0 && k < 10);
    while (k > 0 && n + 1 < cap) buf[n++] = d[--k];
    for (; tail && *tail && n + 1 < cap; tail++) buf[n++] = *tail;
    if (cap) buf[n < cap ? n : cap - 1] = 0;
    return n;
}
/* a + b, truncated to cap. */
static inline void gl_cat(char *buf, size_t cap, const char *a, const char *b) {
    size_t n = 0;
    for (; *a && n + 1 < cap; a++) buf[n++] = *a;
    for (; *b && n + 1 < cap; b++) buf[n++] = *b;
    if (cap) buf[n] = 0;
}

/* ---- JSON helpers (gltf_container.c) --------------------------------------- */

static inline const sk_jv *j_get(const sk_jv *obj, const char *key) { return sk_jv_get(obj, key); }
static inline const sk_jv *j_child(const sk_jv *v) { return sk_jv_child(v); }
static inline const sk_jv *j_next(const sk_jv *v) { return sk_jv_next(v); }
static inline bool j_is_array(const sk_jv *v) { return sk_jv_is(v, SK_JV_ARRAY); }
static inline bool j_is_object(const sk_jv *v) { return sk_jv_is(v, SK_JV_OBJECT); }
static inline bool j_is_number(const sk_jv *v) { return sk_jv_is(v, SK_JV_NUMBER); }
static inline bool j_is_string(const sk_jv *v) { return sk_jv_is(v, SK_JV_STRING); }
static inline bool j_is_true(const sk_jv *v) { return sk_jv_is(v, SK_JV_TRUE); }
static inline bool j_is_bool(const sk_jv *v) { return sk_jv_is(v, SK_JV_TRUE) || sk_jv_is(v, SK_JV_FALSE); }
/* Elements of an array, members of an object (0 for anything else). */
static inline int j_size(const sk_jv *v) { return v ? (int)v->count : 0; }

static inline bool j_is_uint(const sk_jv *it, double limit) {
    if (!j_is_number(it)) return false;
    double d = it->valuedouble;
    return d >= 0.0 && d < limit && d == floor(d);
}

/* A top-level array of objects as a flat table (indexed by the reader). */
sk_result sk_gl_collection(gl_ctx *g, const char *key, const sk_jv ***out, uint32_t *count);

/* gltf_stream.c: the BIN chunk of a .glb read from g->file (after the
 * top-level collections, before the buffers): every byte except the keys
 * the clip builder can stream. sk_gl_stream_ensure reads any such range
 * that [p, p + n) touches (every reader of the BIN's bytes calls it first);
 * sk_gl_stream_pending says whether one is still unread there;
 * sk_gl_stream_fetch is the clip builder's sk_key_fetch_fn (user: g). */
sk_result sk_gl_stream_bin(gl_ctx *g);
sk_result sk_gl_stream_ensure(gl_ctx *g, const void *p, size_t n);
bool sk_gl_stream_pending(const gl_ctx *g, const void *p, size_t n);
bool sk_gl_stream_fetch(void *user, const float *src, size_t bytes, float *dst);

#include "io/gltf_stream.h" /* sk_gltf_load_file_streamed */
/* Optional index property: -1 when absent. */
sk_result sk_gl_opt_index(gl_ctx *g, const sk_jv *obj, const char *key, uint32_t limit, const char *what,
                          const char *path, int32_t *out);
sk_result sk_gl_req_index(gl_ctx *g, const sk_jv *obj, const char *key, uint32_t limit, const char *what,
                          const char *path, uint32_t *out);
/* Optional non-negative integer with a default and an upper bound. */
sk_result sk_gl_opt_uint(gl_ctx *g, const sk_jv *obj, const char *key, const char *path, uint64_t def, double max,
                         uint64_t *out, bool *present);
sk_result sk_gl_req_uint(gl_ctx *g, const sk_jv *obj, const char *key, const char *path, double max, uint64_t *out);
sk_result sk_gl_opt_string(gl_ctx *g, const sk_jv *obj, const char *key, const char *path, const char **out);
/* Fixed-length array of finite numbers; *present false when absent. */
sk_result sk_gl_opt_numbers(gl_ctx *g, const sk_jv *obj, const char *key, const char *path, uint32_t n, double *out,
                            bool *present);
/* Array length of an optional array property (type-checked); 0 when absent. */
sk_result sk_gl_array_len(gl_ctx *g, const sk_jv *obj, const char *key, const char *path, const sk_jv **arr,
                          uint32_t *len);

/* Images: their bytes from bufferViews, data: URIs or files (§3.9.2). */
sk_result sk_gl_load_images(gl_ctx *g);
/* gltf_container.c, called by the entry points (gltf_read.c) */
sk_result sk_gl_parse_glb(gl_ctx *g, const uint8_t *d, size_t size, const char **json, size_t *json_len);
sk_result sk_gl_check_asset(gl_ctx *g);
sk_result sk_gl_load_buffers(gl_ctx *g);

/* ---- bufferViews and accessors (gltf_accessor.c) ----------------------------- */

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

sk_result sk_gl_load_views(gl_ctx *g);
/* Every accessor's layout is validated against its bufferView up front. */
sk_result sk_gl_load_accessors(gl_ctx *g);
/* Checks an accessor reference (a JSON index property) against the expected
 * type (NULL: any) and allowed component types; returns its index. */
sk_result sk_gl_acc_ref(gl_ctx *g, const sk_jv *it, const char *path, const char *type, unsigned allowed,
                        uint32_t *out);
/* The data of an accessor we are about to read must exist. */
sk_result sk_gl_acc_available(gl_ctx *g, uint32_t index, const char *user_path);
/* Decodes an accessor into floats (count * ncomp, matrices column-major
 * without padding) in the given arena. */
/* Floats in place in the buffer (sk_gl_acc_viewable first: float, packed, no sparse, aligned). */
bool sk_gl_acc_viewable(const gl_ctx *g, uint32_t index);
sk_result sk_gl_acc_float_view(gl_ctx *g, uint32_t index, const char *user_path, const float **out);
/* As sk_gl_acc_float_view, but the floats' Inf/NaN check is left to the
 * caller when *pending comes back true: its own pass over the values then
 * either clears g->accs[index].finite_pending or, having seen a word with
 * all exponent bits set, calls sk_gl_acc_finite (which fails with the
 * accessor's message). */
sk_result sk_gl_acc_float_view_unchecked(gl_ctx *g, uint32_t index, const char *user_path, const float **out,
                                         bool *pending);
/* As sk_gl_acc_float_view_unchecked without reading streamed bytes
 * (gltf_stream.c): *lazy says whether some of them are not read yet (the
 * clip builder then fetches them: sk_clip_builder_add_track_ref_lazy). */
sk_result sk_gl_acc_float_view_lazy(gl_ctx *g, uint32_t index, const char *user_path, const float **out,
                                    bool *pending, bool *lazy);
/* The Inf/NaN check of a packed float accessor, if still pending. */
sk_result sk_gl_acc_finite(gl_ctx *g, uint32_t index);
/* Every accessor whose check is still pending (the load's last step, so
 * that data no step read is checked as before). */
sk_result sk_gl_acc_check_pending(gl_ctx *g);
sk_result sk_gl_acc_read_float(gl_ctx *g, uint32_t index, sk_arena *arena, const char *user_path, float **out);
/* Charges bytes the reader allocates for a file's data without decoding an
 * accessor (zero positions, skinning arrays) to the decoded-data budget:
 * SK_ERR_LIMIT naming user_path and what when it would pass (issue #14). */
sk_result sk_gl_budget(gl_ctx *g, uint64_t bytes, const char *user_path, const char *what);
/* The same into the asset's arena, decoded once per accessor: primitives and
 * morph targets that use one accessor share its array (read-only). */
sk_result sk_gl_acc_read_float_shared(gl_ctx *g, uint32_t index, const char *user_path, const float **out);
/* Integer accessor (indices, joints) into uint32 values. */
sk_result sk_gl_acc_read_uint(gl_ctx *g, uint32_t index, sk_arena *arena, const char *user_path, uint32_t **out);

/* ---- document (gltf_document.c) ---------------------------------------------- */

/* Samplers, textures and materials (§3.8, §3.9), before the meshes. */
sk_result sk_gl_load_looks(gl_ctx *g);
sk_result sk_gl_load_meshes(gl_ctx *g);
sk_result sk_gl_load_nodes(gl_ctx *g);
sk_result sk_gl_build_skeleton(gl_ctx *g);
sk_result sk_gl_load_skins(gl_ctx *g);
sk_result sk_gl_load_scenes(gl_ctx *g);

/* ---- animations (gltf_animation.c) ------------------------------------------- */

sk_result sk_gl_load_animations(gl_ctx *g);
/* gltf_container.c: a warning through sk_gltf_options.warning (printf-style;
 * nothing when no callback is set; no allocation). */
void sk_gl_warn(gl_ctx *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* gltf_limits.c: refuses values that would overflow in world space. */
sk_result sk_gl_check_world_range(gl_ctx *g);
/* gltf_limits.c: the largest |translation| (length: width 3) or |scale
 * component| over a track's keys, CUBICSPLINE tangents times the key span
 * included. */
/* finite: NULL, or set to whether every value's exponent bits are not all
 * set (the values need not have been checked for Inf/NaN then; the bound
 * means nothing when *finite comes back false). */
double sk_gl_track_bound(const float *times, const float *v, uint32_t key_count, uint32_t width, bool cubic, bool length,
                         bool *finite);

#endif
