/* .glb writer: any sk_asset as a self-contained glTF 2.0 binary.
 *
 * Layout: nodes in the asset's file-node order (node n is joint
 * node_to_joint[n]), one accessor per array, each in its own bufferView,
 * every view 4-byte aligned in the single BIN chunk; images in the BIN chunk
 * too (bufferView + mimeType). The asset's materials, textures and samplers
 * are written as they are; primitives of assets built in code that carry only
 * a base colour get materials made from it (deduplicated). Clips without
 * tracks are left out (glTF animations need one channel). The JSON text comes
 * from a streaming writer on the asset's allocator. */
#include "core/internal.h"
#include "io/json_internal.h"
#include "skelanim/io/gltf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define GLB_MAGIC 0x46546C67u /* "glTF" (§4.4.2) */

#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

#define GL_UNSIGNED_BYTE 5121
#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_FLOAT 5126
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963

typedef struct gw_material {
    float color[4];
} gw_material;

typedef struct gw_state {
    const sk_asset *asset;
    const sk_allocator *alloc;
    sk_error *err;
    sk_result status;
    uint8_t *bin;
    size_t bin_size, bin_cap;
    sk_json_writer doc;              /* the JSON chunk: the root object */
    sk_json_writer views, accessors; /* bodies of the two arrays, appended at the end */
    uint32_t view_count, accessor_count;
    gw_material *mats;               /* materials made from base colours (after the asset's own) */
    size_t mat_count, mat_cap;
    int64_t *image_index;            /* per asset image: index written, or -1 (left out) */
    int64_t *mesh_index;             /* per asset mesh: index written, or -1 (no primitive to write) */
    uint32_t written_meshes;
    sk_gltf_warning_fn warning;      /* what is left out is told here (NULL: nobody asked) */
    void *warning_user;
} gw_state;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void gw_warn(gw_state *w, const char *fmt, ...) {
    if (!w->warning) return;
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->warning(w->warning_user, msg);
}

/* " \"name\"" for messages, or "" when unnamed (names are cut at 60 bytes). */
static const char *gw_q(char buf[72], const char *name) {
    if (!name || !name[0]) return "";
    snprintf(buf, 72, " \"%.60s\"", name);
    return buf;
}

static const char *gw_path_name(sk_track_path p);

static bool gw_fail(gw_state *w, sk_result code, const char *what) {
    if (w->status == SK_OK) w->status = sk_error_set(w->err, code, "sk_glb_write: %s", what);
    return false;
}

/* Out of memory in a JSON writer is reported once, at the end of a section. */
static bool gw_ok(gw_state *w) {
    if (w->status == SK_OK && (w->doc.failed || w->views.failed || w->accessors.failed))
        gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory writing the JSON");
    return w->status == SK_OK;
}

/* Appends bytes to the BIN chunk, 4-byte aligned; returns the offset or SIZE_MAX. */
static size_t gw_bin_append(gw_state *w, const void *data, size_t size) {
    size_t off = w->bin_size, padded, need;
    if (!sk_size_add(size, 3, &padded) || !sk_size_add(off, padded & ~(size_t)3, &need) || need > 0xFFFFFFF0u) {
        gw_fail(w, SK_ERR_LIMIT, "binary data exceed 4 GiB");
        return SIZE_MAX;
    }
    padded &= ~(size_t)3;
    if (need > w->bin_cap) {
        size_t cap = w->bin_cap ? w->bin_cap : 4096;
        while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        uint8_t *p = sk_realloc(w->alloc, w->bin, w->bin_cap, cap);
        if (!p) {
            gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
            return SIZE_MAX;
        }
        w->bin = p;
        w->bin_cap = cap;
    }
    memcpy(w->bin + off, data, size);
    memset(w->bin + off + size, 0, padded - size);
    w->bin_size = need;
    return off;
}

/* A bufferView over new BIN bytes; returns its index or -1. */
static int64_t gw_view(gw_state *w, const void *data, size_t bytes, int target) {
    if (w->status != SK_OK) return -1;
    size_t off = gw_bin_append(w, data, bytes);
    if (off == SIZE_MAX) return -1;
    sk_json_writer *v = &w->views;
    sk_json_begin_object(v);
    sk_json_key_uint(v, "buffer", 0);
    if (off) sk_json_key_uint(v, "byteOffset", off);
    sk_json_key_uint(v, "byteLength", bytes);
    if (target) sk_json_key_uint(v, "target", (uint64_t)target);
    sk_json_end_object(v);
    return w->view_count++;
}

typedef struct gw_accessor_desc {
    const void *data;
    size_t count;          /* elements */
    int component;         /* GL component type */
    const char *type;      /* SCALAR, VEC2, ... */
    int components;        /* per element */
    int target;            /* 0 or GL buffer target */
    bool min_max;          /* write min/max (float data only) */
    bool normalized;
} gw_accessor_desc;

static int gw_component_size(int c) {
    return c == GL_UNSIGNED_BYTE ? 1 : c == GL_UNSIGNED_SHORT ? 2 : 4;
}

/* Writes data as a bufferView + accessor; returns the accessor index or -1. */
static int64_t gw_accessor(gw_state *w, const gw_accessor_desc *d) {
    if (w->status != SK_OK) return -1;
    if (d->count == 0) {
        gw_fail(w, SK_ERR_INVALID_ARGUMENT, "an array has no elements (glTF accessors need count >= 1)");
        return -1;
    }
    size_t elem = (size_t)gw_component_size(d->component) * (size_t)d->components, bytes;
    if (!sk_size_mul(elem, d->count, &bytes)) {
        gw_fail(w, SK_ERR_LIMIT, "array too large");
        return -1;
    }
    int64_t view = gw_view(w, d->data, bytes, d->target);
    if (view < 0) return -1;
    sk_json_writer *a = &w->accessors;
    sk_json_begin_object(a);
    sk_json_key_uint(a, "bufferView", (uint64_t)view);
    sk_json_key_uint(a, "componentType", (uint64_t)d->component);
    if (d->normalized) {
        sk_json_key(a, "normalized");
        sk_json_bool(a, true);
    }
    sk_json_key_uint(a, "count", d->count);
    sk_json_key_string(a, "type", d->type);
    if (d->min_max && d->component == GL_FLOAT) {
        float mn[16], mx[16];
        const float *f = d->data;
        int c = d->components;
        for (int k = 0; k < c; k++) mn[k] = mx[k] = f[k];
        for (size_t i = 1; i < d->count; i++)
            for (int k = 0; k < c; k++) {
                float v = f[i * (size_t)c + (size_t)k];
                if (v < mn[k]) mn[k] = v;
                if (v > mx[k]) mx[k] = v;
            }
        sk_json_key(a, "min");
        sk_json_floats(a, mn, (size_t)c);
        sk_json_key(a, "max");
        sk_json_floats(a, mx, (size_t)c);
    }
    sk_json_end_object(a);
    return w->accessor_count++;
}

static int64_t gw_float_accessor(gw_state *w, const float *data, size_t count, int comps, int target, bool min_max) {
    static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4", "", "", "", "", "", "", "", "", "",
                                        "", "", "MAT4"};
    gw_accessor_desc d = {data, count, GL_FLOAT, types[comps], comps, target, min_max, false};
    return gw_accessor(w, &d);
}

/* "key": index of a freshly written accessor (nothing when it failed). */
static void gw_key_index(sk_json_writer *j, const char *key, int64_t index) {
    if (index < 0) return;
    sk_json_key_uint(j, key, (uint64_t)index);
}

static bool gw_all_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!sk_isfinite_f(v[i])) return false;
    return true;
}

/* ---- validation of the input asset ------------------------------------------- */

static bool gw_primitive_written(const sk_primitive *pr) { return pr->vertex_count > 0 && pr->positions; }

/* What the glTF reader refuses although an sk_asset may hold it (issue #14
 * finding 4: the writer never writes a file the reader refuses): key times
 * that are negative or not strictly increasing (an accessor without a
 * bufferView, all zeros, loads with a warning but cannot be written as
 * data), and inverse bind matrices whose bottom row is not (0, 0, 0, 1)
 * (an all-zero one, from the same kind of accessor). */
static bool gw_check_reader_rules(gw_state *w) {
    const sk_asset *a = w->asset;
    char msg[300];
    for (uint32_t s = 0; s < a->skin_count; s++)
        for (uint32_t j = 0; j < a->skins[s].joint_count; j++) {
            const float *m = a->skins[s].inverse_bind[j].m;
            if (fabsf(m[3]) > 1e-5f || fabsf(m[7]) > 1e-5f || fabsf(m[11]) > 1e-5f || fabsf(m[15] - 1.0f) > 1e-5f) {
                snprintf(msg, sizeof msg,
                         "skin %u: inverse bind matrix %u is not affine (bottom row %g %g %g %g): the glTF reader "
                         "would refuse the file",
                         s, j, (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
                return gw_fail(w, SK_ERR_INVALID_ARGUMENT, msg);
            }
        }
    float *times = NULL;
    size_t cap = 0;
    bool ok = true;
    for (uint32_t c = 0; ok && c < a->clip_count; c++) {
        const sk_clip *clip = a->clips[c];
        for (uint32_t i = 0; ok && i < sk_clip_track_count(clip); i++) {
            sk_track_info in;
            if (!sk_clip_track_info(clip, i, &in) || in.key_count == 0) continue;
            if (in.key_count > cap) {
                float *t = sk_realloc(w->alloc, times, cap * sizeof(float), (size_t)in.key_count * sizeof(float));
                if (!t) {
                    ok = gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
                    break;
                }
                times = t;
                cap = in.key_count;
            }
            sk_clip_track_keys(clip, i, times, NULL);
            for (uint32_t k = 0; k < in.key_count; k++)
                if (times[k] < 0.0f || (k > 0 && !(times[k] > times[k - 1]))) {
                    snprintf(msg, sizeof msg,
                             "clip %u '%s' track %u (joint %u %s): key %u at %g %s: the glTF reader would refuse the file",
                             c, sk_clip_name(clip), i, in.joint, gw_path_name(in.path), k, (double)times[k],
                             times[k] < 0.0f ? "is negative" : "does not come after the key before it");
                    ok = gw_fail(w, SK_ERR_INVALID_ARGUMENT, msg);
                    break;
                }
        }
    }
    sk_free(w->alloc, times, cap * sizeof(float));
    return ok;
}

/* What sk_asset_validate checks, plus what a glTF file needs on top. A
 * primitive without vertices (its data was not in the file it was loaded
 * from, or an asset built in code) cannot be a glTF primitive: it is left out,
 * and a mesh left with none is left out too (the nodes using it are written
 * without mesh, skin and morph weights, and weight tracks aimed at them are
 * dropped). Meshes are renumbered around the ones left out. */
static bool gw_check_asset(gw_state *w) {
    const sk_asset *a = w->asset;
    sk_error e;
    if (sk_asset_validate(a, &e) != SK_OK) return gw_fail(w, SK_ERR_INVALID_ARGUMENT, e.message);
    if (!gw_check_reader_rules(w)) return false;
    char msg[200];
    w->mesh_index = sk_alloc(w->alloc, (size_t)(a->mesh_count ? a->mesh_count : 1) * sizeof *w->mesh_index);
    if (!w->mesh_index) return gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
    int64_t next = 0;
    char q[72];
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const sk_mesh *m = &a->meshes[i];
        bool any = false;
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            bool ok = gw_primitive_written(&m->primitives[p]);
            any |= ok;
            if (!ok) gw_warn(w, "mesh %u%s primitive %u: no vertices, left out", i, gw_q(q, m->name), p);
        }
        w->mesh_index[i] = any ? next++ : -1;
        if (!any)
            gw_warn(w, "mesh %u%s: no primitive with vertices, left out (nodes using it are written without it)", i,
                    gw_q(q, m->name));
    }
    w->written_meshes = (uint32_t)next;
    for (uint32_t i = 0; i < a->skin_count; i++)
        if (a->skins[i].joint_count == 0) {
            snprintf(msg, sizeof msg, "skin %u has no joints", i);
            return gw_fail(w, SK_ERR_INVALID_ARGUMENT, msg);
        }
    return true;
}

/* The mesh a joint is written with, or -1. */
static int64_t gw_joint_mesh(const gw_state *w, uint32_t joint) {
    int32_t m = w->asset->joint_mesh ? w->asset->joint_mesh[joint] : -1;
    return m >= 0 ? w->mesh_index[m] : -1;
}

static uint32_t gw_node(const sk_asset *a, uint32_t joint) {
    return a->joint_to_node ? a->joint_to_node[joint] : joint;
}
static uint32_t gw_joint(const sk_asset *a, uint32_t node) {
    return a->node_to_joint ? a->node_to_joint[node] : node;
}

/* ---- sections ------------------------------------------------------------------ */

static bool gw_nodes(gw_state *w) {
    const sk_asset *a = w->asset;
    const sk_skeleton *s = a->skeleton;
    sk_json_writer *j = &w->doc;
    sk_json_key(j, "nodes");
    sk_json_begin_array(j);
    for (uint32_t n = 0; n < s->joint_count && w->status == SK_OK; n++) {
        uint32_t jn = gw_joint(a, n);
        sk_json_begin_object(j);
        if (s->names[jn] && s->names[jn][0]) sk_json_key_string(j, "name", s->names[jn]);
        bool children = false;
        for (uint32_t c = jn + 1; c < s->joint_count; c++)
            if (s->parents[c] == (int32_t)jn) {
                if (!children) {
                    sk_json_key(j, "children");
                    sk_json_begin_array(j);
                    children = true;
                }
                sk_json_uint(j, gw_node(a, c));
            }
        if (children) sk_json_end_array(j);
        const sk_transform *x = &s->rest[jn];
        float t[3] = {x->t.x, x->t.y, x->t.z}, r[4] = {x->r.x, x->r.y, x->r.z, x->r.w}, sc[3] = {x->s.x, x->s.y, x->s.z};
        if (!gw_all_finite(t, 3) || !gw_all_finite(r, 4) || !gw_all_finite(sc, 3))
            return gw_fail(w, SK_ERR_INVALID_ARGUMENT, "a rest transform is not finite");
        if (t[0] != 0 || t[1] != 0 || t[2] != 0) {
            sk_json_key(j, "translation");
            sk_json_floats(j, t, 3);
        }
        if (r[0] != 0 || r[1] != 0 || r[2] != 0 || r[3] != 1) {
            sk_json_key(j, "rotation");
            sk_json_floats(j, r, 4);
        }
        if (sc[0] != 1 || sc[1] != 1 || sc[2] != 1) {
            sk_json_key(j, "scale");
            sk_json_floats(j, sc, 3);
        }
        int64_t mesh = gw_joint_mesh(w, jn);
        int32_t skin = a->joint_skin ? a->joint_skin[jn] : -1;
        if (mesh >= 0) {
            sk_json_key_uint(j, "mesh", (uint64_t)mesh);
            if (skin >= 0) sk_json_key_uint(j, "skin", (uint64_t)skin);
            const sk_mesh *m = &a->meshes[a->joint_mesh[jn]];
            if (s->weight_count && s->weight_count[jn] && s->weight_count[jn] == m->weight_count) {
                sk_json_key(j, "weights");
                sk_json_floats(j, s->rest_weights + s->weight_offset[jn], s->weight_count[jn]);
            }
        }
        sk_json_end_object(j);
    }
    sk_json_end_array(j);
    return gw_ok(w);
}

/* The material a primitive is written with: its own from the asset's table,
 * or (assets built in code: a material index without a table, or a colour
 * without a material) one made per distinct base colour and numbered after
 * the asset's. Returns the index or -1 (no material). */
static int64_t gw_primitive_material(gw_state *w, const sk_primitive *pr) {
    const sk_asset *a = w->asset;
    if (pr->material >= 0 && (uint32_t)pr->material < a->material_count) return pr->material;
    const float *c = pr->base_color;
    bool white = c[0] == 1 && c[1] == 1 && c[2] == 1 && c[3] == 1;
    if (pr->material < 0 && white) return -1;
    size_t k = 0;
    while (k < w->mat_count && memcmp(w->mats[k].color, c, sizeof w->mats[k].color) != 0) k++;
    if (k == w->mat_count) {
        if (w->mat_count == w->mat_cap) {
            size_t cap = w->mat_cap ? w->mat_cap * 2 : 8;
            gw_material *m = sk_realloc(w->alloc, w->mats, w->mat_cap * sizeof *m, cap * sizeof *m);
            if (!m) {
                gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
                return -1;
            }
            w->mats = m;
            w->mat_cap = cap;
        }
        memcpy(w->mats[w->mat_count++].color, c, sizeof w->mats[k].color);
    }
    return (int64_t)(a->material_count + k);
}

static bool gw_materials(gw_state *w) {
    const sk_asset *a = w->asset;
    if (a->material_count + w->mat_count == 0) return true;
    sk_json_writer *j = &w->doc;
    sk_json_key(j, "materials");
    sk_json_begin_array(j);
    for (uint32_t i = 0; i < a->material_count; i++) {
        const sk_material *m = &a->materials[i];
        const float *c = m->base_color;
        /* Primitives carry TEXCOORD_0 only: a texture mapped with another set is left out. */
        int32_t tex = m->base_color_texture.texcoord == 0 ? m->base_color_texture.texture : -1;
        if (m->base_color_texture.texture >= 0 && tex < 0) {
            char q[72];
            gw_warn(w, "material %u%s: base colour texture mapped with TEXCOORD_%u, left out (primitives carry "
                       "TEXCOORD_0 only)", i, gw_q(q, m->name), (unsigned)m->base_color_texture.texcoord);
        }
        sk_json_begin_object(j);
        if (m->name && m->name[0]) sk_json_key_string(j, "name", m->name);
        sk_json_key(j, "pbrMetallicRoughness");
        sk_json_begin_object(j);
        if (c[0] != 1 || c[1] != 1 || c[2] != 1 || c[3] != 1) {
            sk_json_key(j, "baseColorFactor");
            sk_json_floats(j, c, 4);
        }
        if (tex >= 0) {
            sk_json_key(j, "baseColorTexture");
            sk_json_begin_object(j);
            sk_json_key_uint(j, "index", (uint64_t)tex);
            sk_json_end_object(j);
        }
        if (m->metallic != 1) sk_json_key_float(j, "metallicFactor", m->metallic);
        if (m->roughness != 1) sk_json_key_float(j, "roughnessFactor", m->roughness);
        sk_json_end_object(j);
        if (m->alpha_mode == SK_ALPHA_MASK) {
            sk_json_key_string(j, "alphaMode", "MASK");
            if (m->alpha_cutoff != 0.5f) sk_json_key_float(j, "alphaCutoff", m->alpha_cutoff);
        } else if (m->alpha_mode == SK_ALPHA_BLEND) {
            sk_json_key_string(j, "alphaMode", "BLEND");
        }
        if (m->double_sided) {
            sk_json_key(j, "doubleSided");
            sk_json_bool(j, true);
        }
        sk_json_end_object(j);
    }
    for (size_t k = 0; k < w->mat_count; k++) {
        sk_json_begin_object(j);
        sk_json_key(j, "pbrMetallicRoughness");
        sk_json_begin_object(j);
        sk_json_key(j, "baseColorFactor");
        sk_json_floats(j, w->mats[k].color, 4);
        /* A matte, non-metallic surface (glTF's defaults are metal 1, rough 1). */
        sk_json_key_uint(j, "metallicFactor", 0);
        sk_json_key_float(j, "roughnessFactor", 0.8f);
        sk_json_end_object(j);
        sk_json_end_object(j);
    }
    sk_json_end_array(j);
    return gw_ok(w);
}

/* The MIME type of an encoded image from its first bytes, or NULL. */
static const char *gw_sniff_mime(const uint8_t *d, size_t n) {
    if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) return "image/png";
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return "image/jpeg";
    if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) return "image/webp";
    if (n >= 12 && memcmp(d, "\xABKTX 20\xBB\r\n\x1a\n", 12) == 0) return "image/ktx2";
    return NULL;
}

/* Images with bytes go into the BIN chunk (a bufferView and mimeType: the
 * declared type, else one recognised from the bytes); images without bytes
 * keep their uri (the .glb then refers to that file or URL); an image with
 * neither (or bytes of no known type) is left out, and textures using it
 * lose their source. Then samplers and textures. */
static bool gw_images_textures(gw_state *w) {
    const sk_asset *a = w->asset;
    sk_json_writer *j = &w->doc;
    w->image_index = sk_alloc(w->alloc, (size_t)(a->image_count ? a->image_count : 1) * sizeof *w->image_index);
    if (!w->image_index) return gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
    uint32_t written = 0;
    for (uint32_t i = 0; i < a->image_count && w->status == SK_OK; i++) {
        const sk_image *im = &a->images[i];
        const char *mime = im->mime_type && im->mime_type[0] ? im->mime_type : NULL;
        if (im->data && im->size && !mime) mime = gw_sniff_mime(im->data, im->size);
        bool embed = im->data && im->size && mime;
        bool by_uri = !embed && im->uri && im->uri[0];
        w->image_index[i] = -1;
        char q[72];
        if (!embed && !by_uri) {
            gw_warn(w, "image %u%s: %s, left out (textures using it lose their source)", i, gw_q(q, im->name),
                    im->data && im->size ? "bytes of no known type and no uri" : "no bytes and no uri");
            continue;
        }
        if (by_uri)
            gw_warn(w, "image %u%s: %s, kept by its uri \"%.80s\": the .glb refers to it and is not self-contained",
                    i, gw_q(q, im->name), im->data && im->size ? "bytes of no known type" : "no bytes", im->uri);
        if (written++ == 0) {
            sk_json_key(j, "images");
            sk_json_begin_array(j);
        }
        sk_json_begin_object(j);
        if (im->name && im->name[0]) sk_json_key_string(j, "name", im->name);
        if (embed) {
            gw_key_index(j, "bufferView", gw_view(w, im->data, im->size, 0));
            sk_json_key_string(j, "mimeType", mime);
        } else {
            sk_json_key_string(j, "uri", im->uri);
            if (mime) sk_json_key_string(j, "mimeType", mime);
        }
        sk_json_end_object(j);
        w->image_index[i] = written - 1;
    }
    if (written) sk_json_end_array(j);
    if (a->sampler_count) {
        sk_json_key(j, "samplers");
        sk_json_begin_array(j);
        for (uint32_t i = 0; i < a->sampler_count; i++) {
            const sk_sampler *sm = &a->samplers[i];
            sk_json_begin_object(j);
            if (sm->name && sm->name[0]) sk_json_key_string(j, "name", sm->name);
            if (sm->mag_filter) sk_json_key_uint(j, "magFilter", sm->mag_filter);
            if (sm->min_filter) sk_json_key_uint(j, "minFilter", sm->min_filter);
            if (sm->wrap_s && sm->wrap_s != 10497) sk_json_key_uint(j, "wrapS", sm->wrap_s);
            if (sm->wrap_t && sm->wrap_t != 10497) sk_json_key_uint(j, "wrapT", sm->wrap_t);
            sk_json_end_object(j);
        }
        sk_json_end_array(j);
    }
    if (a->texture_count) {
        sk_json_key(j, "textures");
        sk_json_begin_array(j);
        for (uint32_t i = 0; i < a->texture_count; i++) {
            const sk_texture *t = &a->textures[i];
            sk_json_begin_object(j);
            if (t->name && t->name[0]) sk_json_key_string(j, "name", t->name);
            if (t->image >= 0 && w->image_index[t->image] >= 0)
                sk_json_key_uint(j, "source", (uint64_t)w->image_index[t->image]);
            if (t->sampler >= 0) sk_json_key_uint(j, "sampler", (uint64_t)t->sampler);
            sk_json_end_object(j);
        }
        sk_json_end_array(j);
    }
    return gw_ok(w);
}

static bool gw_primitive(gw_state *w, const sk_primitive *pr, void **scratch, size_t *scratch_size) {
    sk_json_writer *j = &w->doc;
    size_t vc = pr->vertex_count;
    sk_json_begin_object(j);
    sk_json_key(j, "attributes");
    sk_json_begin_object(j);
    gw_key_index(j, "POSITION", gw_float_accessor(w, pr->positions, vc, 3, GL_ARRAY_BUFFER, true));
    if (pr->normals) gw_key_index(j, "NORMAL", gw_float_accessor(w, pr->normals, vc, 3, GL_ARRAY_BUFFER, false));
    if (pr->tangents) gw_key_index(j, "TANGENT", gw_float_accessor(w, pr->tangents, vc, 4, GL_ARRAY_BUFFER, false));
    if (pr->texcoords)
        gw_key_index(j, "TEXCOORD_0", gw_float_accessor(w, pr->texcoords, vc, 2, GL_ARRAY_BUFFER, false));
    uint32_t ic = pr->influence_count;
    if (ic) {
        uint16_t maxj = 0;
        for (size_t k = 0; k < vc * ic; k++)
            if (pr->joints[k] > maxj) maxj = pr->joints[k];
        bool bytes = maxj < 256;
        size_t need = vc * 4 * (bytes ? 1 : 2) + vc * 4 * sizeof(float);
        if (need > *scratch_size) {
            void *q = sk_realloc(w->alloc, *scratch, *scratch_size, need);
            if (!q) return gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
            *scratch = q;
            *scratch_size = need;
        }
        for (uint32_t set = 0; set < ic / 4; set++) {
            float *wts = *scratch;
            void *jts = wts + vc * 4;
            for (size_t v = 0; v < vc; v++)
                for (int k = 0; k < 4; k++) {
                    size_t src = v * ic + set * 4 + (size_t)k;
                    if (bytes) ((uint8_t *)jts)[v * 4 + (size_t)k] = (uint8_t)pr->joints[src];
                    else ((uint16_t *)jts)[v * 4 + (size_t)k] = pr->joints[src];
                    wts[v * 4 + (size_t)k] = pr->weights[src];
                }
            gw_accessor_desc jd = {jts, vc, bytes ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT, "VEC4", 4,
                                   GL_ARRAY_BUFFER, false, false};
            gw_key_index(j, set ? "JOINTS_1" : "JOINTS_0", gw_accessor(w, &jd));
            gw_key_index(j, set ? "WEIGHTS_1" : "WEIGHTS_0", gw_float_accessor(w, wts, vc, 4, GL_ARRAY_BUFFER, false));
        }
    }
    sk_json_end_object(j);
    if (pr->indices && pr->index_count) {
        uint32_t maxi = 0;
        for (uint32_t k = 0; k < pr->index_count; k++)
            if (pr->indices[k] > maxi) maxi = pr->indices[k];
        if (maxi < 65535) { /* 65535 is the primitive-restart value */
            size_t need = (size_t)pr->index_count * 2;
            if (need > *scratch_size) {
                void *q = sk_realloc(w->alloc, *scratch, *scratch_size, need);
                if (!q) return gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
                *scratch = q;
                *scratch_size = need;
            }
            uint16_t *ix = *scratch;
            for (uint32_t k = 0; k < pr->index_count; k++) ix[k] = (uint16_t)pr->indices[k];
            gw_accessor_desc id = {ix, pr->index_count, GL_UNSIGNED_SHORT, "SCALAR", 1, GL_ELEMENT_ARRAY_BUFFER,
                                   false, false};
            gw_key_index(j, "indices", gw_accessor(w, &id));
        } else {
            gw_accessor_desc id = {pr->indices, pr->index_count, GL_UNSIGNED_INT, "SCALAR", 1, GL_ELEMENT_ARRAY_BUFFER,
                                   false, false};
            gw_key_index(j, "indices", gw_accessor(w, &id));
        }
    }
    if (pr->mode != 4) sk_json_key_uint(j, "mode", pr->mode);
    int64_t mat = gw_primitive_material(w, pr);
    if (mat >= 0) sk_json_key_uint(j, "material", (uint64_t)mat);
    if (pr->target_count) {
        sk_json_key(j, "targets");
        sk_json_begin_array(j);
        for (uint32_t t = 0; t < pr->target_count; t++) {
            const sk_morph_target *mt = &pr->targets[t];
            sk_json_begin_object(j);
            if (mt->positions)
                gw_key_index(j, "POSITION", gw_float_accessor(w, mt->positions, vc, 3, GL_ARRAY_BUFFER, true));
            if (mt->normals)
                gw_key_index(j, "NORMAL", gw_float_accessor(w, mt->normals, vc, 3, GL_ARRAY_BUFFER, false));
            if (mt->tangents)
                gw_key_index(j, "TANGENT", gw_float_accessor(w, mt->tangents, vc, 3, GL_ARRAY_BUFFER, false));
            sk_json_end_object(j);
        }
        sk_json_end_array(j);
    }
    sk_json_end_object(j);
    return gw_ok(w);
}

static bool gw_meshes(gw_state *w) {
    const sk_asset *a = w->asset;
    if (w->written_meshes == 0) return true;
    sk_json_writer *j = &w->doc;
    void *scratch = NULL;
    size_t scratch_size = 0;
    sk_json_key(j, "meshes");
    sk_json_begin_array(j);
    for (uint32_t i = 0; i < a->mesh_count && w->status == SK_OK; i++) {
        const sk_mesh *m = &a->meshes[i];
        if (w->mesh_index[i] < 0) continue;
        sk_json_begin_object(j);
        if (m->name && m->name[0]) sk_json_key_string(j, "name", m->name);
        sk_json_key(j, "primitives");
        sk_json_begin_array(j);
        for (uint32_t p = 0; p < m->primitive_count && w->status == SK_OK; p++)
            if (gw_primitive_written(&m->primitives[p])) gw_primitive(w, &m->primitives[p], &scratch, &scratch_size);
        sk_json_end_array(j);
        if (m->weight_count && m->default_weights) {
            sk_json_key(j, "weights");
            sk_json_floats(j, m->default_weights, m->weight_count);
        }
        sk_json_end_object(j);
    }
    sk_json_end_array(j);
    sk_free(w->alloc, scratch, scratch_size);
    return gw_ok(w);
}

static bool gw_skins(gw_state *w) {
    const sk_asset *a = w->asset;
    if (a->skin_count == 0) return true;
    sk_json_writer *j = &w->doc;
    sk_json_key(j, "skins");
    sk_json_begin_array(j);
    for (uint32_t i = 0; i < a->skin_count && w->status == SK_OK; i++) {
        const sk_skin *sk = &a->skins[i];
        sk_json_begin_object(j);
        if (sk->name && sk->name[0]) sk_json_key_string(j, "name", sk->name);
        if (sk->inverse_bind)
            gw_key_index(j, "inverseBindMatrices",
                         gw_float_accessor(w, sk->inverse_bind[0].m, sk->joint_count, 16, 0, false));
        if (sk->skeleton_root >= 0) sk_json_key_uint(j, "skeleton", gw_node(a, (uint32_t)sk->skeleton_root));
        sk_json_key(j, "joints");
        sk_json_begin_array(j);
        for (uint32_t k = 0; k < sk->joint_count; k++) sk_json_uint(j, gw_node(a, sk->joints[k]));
        sk_json_end_array(j);
        sk_json_end_object(j);
    }
    sk_json_end_array(j);
    return gw_ok(w);
}

static bool gw_scenes(gw_state *w) {
    const sk_asset *a = w->asset;
    if (a->scene_count == 0) return true;
    sk_json_writer *j = &w->doc;
    if (a->default_scene >= 0 && (uint32_t)a->default_scene < a->scene_count)
        sk_json_key_uint(j, "scene", (uint64_t)a->default_scene);
    sk_json_key(j, "scenes");
    sk_json_begin_array(j);
    for (uint32_t i = 0; i < a->scene_count; i++) {
        const sk_scene *sc = &a->scenes[i];
        sk_json_begin_object(j);
        if (sc->name && sc->name[0]) sk_json_key_string(j, "name", sc->name);
        if (sc->root_count) {
            sk_json_key(j, "nodes");
            sk_json_begin_array(j);
            for (uint32_t k = 0; k < sc->root_count; k++) sk_json_uint(j, gw_node(a, sc->roots[k]));
            sk_json_end_array(j);
        }
        sk_json_end_object(j);
    }
    sk_json_end_array(j);
    return gw_ok(w);
}

static const char *gw_path_name(sk_track_path p) {
    switch (p) {
    case SK_PATH_TRANSLATION: return "translation";
    case SK_PATH_ROTATION: return "rotation";
    case SK_PATH_SCALE: return "scale";
    case SK_PATH_WEIGHTS: return "weights";
    }
    return "translation";
}
static const char *gw_interp_name(sk_interpolation i) {
    switch (i) {
    case SK_INTERP_LINEAR: return "LINEAR";
    case SK_INTERP_STEP: return "STEP";
    case SK_INTERP_CUBICSPLINE: return "CUBICSPLINE";
    }
    return "LINEAR";
}

/* Sampler inputs already written for this animation, to share identical ones. */
typedef struct gw_input {
    const float *times; /* owned copy */
    uint32_t count;
    int64_t accessor;
} gw_input;

/* One glTF animation: samplers and channels are written into their own
 * writers (a sampler per track, channel t uses sampler t). */
static float gw_animation(gw_state *w, const sk_clip *clip, sk_json_writer *samplers, sk_json_writer *channels) {
    const sk_asset *a = w->asset;
    uint32_t tracks = sk_clip_track_count(clip);
    gw_input *inputs = sk_alloc(w->alloc, (size_t)tracks * sizeof *inputs);
    if (!inputs) {
        gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
        return 0;
    }
    uint32_t input_count = 0, written = 0;
    float max_time = 0; /* the last key of any track */
    for (uint32_t t = 0; t < tracks && w->status == SK_OK; t++) {
        sk_track_info info;
        if (!sk_clip_track_info(clip, t, &info)) {
            gw_fail(w, SK_ERR_INVALID_ARGUMENT, "bad clip track");
            break;
        }
        if (info.path == SK_PATH_WEIGHTS && gw_joint_mesh(w, info.joint) < 0) { /* its mesh is left out */
            char q[72];
            gw_warn(w, "clip%s track %u: morph weights of a node whose mesh is left out, left out",
                    gw_q(q, sk_clip_name(clip)), t);
            continue;
        }
        size_t per_key = (size_t)info.width * (info.interpolation == SK_INTERP_CUBICSPLINE ? 3 : 1);
        size_t nvals = (size_t)info.key_count * per_key;
        float *times = sk_alloc(w->alloc, (size_t)info.key_count * sizeof(float));
        float *vals = sk_alloc(w->alloc, nvals * sizeof(float));
        if (!times || !vals) {
            sk_free(w->alloc, times, (size_t)info.key_count * sizeof(float));
            sk_free(w->alloc, vals, nvals * sizeof(float));
            gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        sk_clip_track_keys(clip, t, times, vals);
        if (times[info.key_count - 1] > max_time) max_time = times[info.key_count - 1];
        int64_t input = -1;
        for (uint32_t k = 0; k < input_count && input < 0; k++)
            if (inputs[k].count == info.key_count &&
                memcmp(inputs[k].times, times, (size_t)info.key_count * sizeof(float)) == 0)
                input = inputs[k].accessor;
        if (input < 0) {
            input = gw_float_accessor(w, times, info.key_count, 1, 0, true);
            inputs[input_count].times = times;
            inputs[input_count].count = info.key_count;
            inputs[input_count].accessor = input;
            input_count++;
            times = NULL; /* kept for comparison */
        }
        int64_t output = info.path == SK_PATH_WEIGHTS
                             ? gw_float_accessor(w, vals, nvals, 1, 0, false)
                             : gw_float_accessor(w, vals, (size_t)info.key_count * (per_key / info.width),
                                                 (int)info.width, 0, false);
        sk_free(w->alloc, times, (size_t)info.key_count * sizeof(float));
        sk_free(w->alloc, vals, nvals * sizeof(float));
        if (w->status != SK_OK) break;
        sk_json_begin_object(samplers);
        gw_key_index(samplers, "input", input);
        sk_json_key_string(samplers, "interpolation", gw_interp_name(info.interpolation));
        gw_key_index(samplers, "output", output);
        sk_json_end_object(samplers);
        sk_json_begin_object(channels);
        sk_json_key_uint(channels, "sampler", written++);
        sk_json_key(channels, "target");
        sk_json_begin_object(channels);
        sk_json_key_uint(channels, "node", gw_node(a, info.joint));
        sk_json_key_string(channels, "path", gw_path_name(info.path));
        sk_json_end_object(channels);
        sk_json_end_object(channels);
    }
    for (uint32_t k = 0; k < input_count; k++)
        sk_free(w->alloc, (void *)inputs[k].times, (size_t)inputs[k].count * sizeof(float));
    sk_free(w->alloc, inputs, (size_t)tracks * sizeof *inputs);
    return max_time;
}

/* Tracks of a clip that are written (weight tracks of nodes whose mesh is left out are not). */
static uint32_t gw_tracks_written(const gw_state *w, const sk_clip *clip) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < sk_clip_track_count(clip); t++) {
        sk_track_info info;
        if (sk_clip_track_info(clip, t, &info) && !(info.path == SK_PATH_WEIGHTS && gw_joint_mesh(w, info.joint) < 0))
            n++;
    }
    return n;
}

static bool gw_animations(gw_state *w) {
    const sk_asset *a = w->asset;
    uint32_t written = 0;
    for (uint32_t c = 0; c < a->clip_count; c++) {
        bool any = gw_tracks_written(w, a->clips[c]) > 0;
        written += any;
        char q[72];
        if (!any)
            gw_warn(w, "clip %u%s: no track glTF can carry, left out (a glTF animation needs one channel)", c,
                    gw_q(q, sk_clip_name(a->clips[c])));
    }
    if (written == 0) return true;
    sk_json_writer *j = &w->doc;
    sk_json_key(j, "animations");
    sk_json_begin_array(j);
    for (uint32_t c = 0; c < a->clip_count && w->status == SK_OK; c++) {
        const sk_clip *clip = a->clips[c];
        if (gw_tracks_written(w, clip) == 0) continue;
        sk_json_writer samplers, channels;
        sk_json_writer_init(&samplers, w->alloc);
        sk_json_writer_init(&channels, w->alloc);
        sk_json_begin_array(&samplers);
        sk_json_begin_array(&channels);
        float max_time = gw_animation(w, clip, &samplers, &channels);
        sk_json_end_array(&samplers);
        sk_json_end_array(&channels);
        sk_json_begin_object(j);
        const char *name = sk_clip_name(clip);
        if (name && name[0]) sk_json_key_string(j, "name", name);
        sk_json_key(j, "channels");
        sk_json_raw(j, channels.buf ? channels.buf : "[]", channels.buf ? channels.len : 2);
        sk_json_key(j, "samplers");
        sk_json_raw(j, samplers.buf ? samplers.buf : "[]", samplers.buf ? samplers.len : 2);
        /* A clip set to loop longer than its keys keeps its length here. */
        float dur = (float)sk_clip_duration(clip);
        if (dur != max_time) {
            sk_json_key(j, "extras");
            sk_json_begin_object(j);
            sk_json_key_float(j, "duration", dur);
            sk_json_end_object(j);
        }
        sk_json_end_object(j);
        if (samplers.failed || channels.failed) gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory writing the JSON");
        sk_json_writer_free(&samplers);
        sk_json_writer_free(&channels);
    }
    sk_json_end_array(j);
    return gw_ok(w);
}

/* ---- container ------------------------------------------------------------------ */

static void gw_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

sk_result sk_glb_write_memory(const sk_asset *asset, void **out, size_t *size, sk_error *err) {
    return sk_glb_write_memory_ex(asset, NULL, out, size, err);
}

sk_result sk_glb_write_memory_ex(const sk_asset *asset, const sk_glb_write_options *opts, void **out,
                                 size_t *size, sk_error *err) {
    if (!out || !size) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_glb_write_memory: out or size is NULL");
    *out = NULL;
    *size = 0;
    if (!asset || !asset->internal)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_glb_write_memory: asset is NULL");
    gw_state w;
    memset(&w, 0, sizeof w);
    w.asset = asset;
    w.alloc = sk_asset_allocator(asset);
    w.err = err;
    if (opts) w.warning = opts->warning, w.warning_user = opts->warning_user;
    if (!gw_check_asset(&w)) {
        sk_free(w.alloc, w.mesh_index, (size_t)(asset->mesh_count ? asset->mesh_count : 1) * sizeof *w.mesh_index);
        return w.status;
    }
    sk_json_writer_init(&w.doc, w.alloc);
    sk_json_writer_init(&w.views, w.alloc);
    sk_json_writer_init(&w.accessors, w.alloc);
    sk_json_begin_array(&w.views);
    sk_json_begin_array(&w.accessors);
    sk_json_begin_object(&w.doc);
    sk_json_key(&w.doc, "asset");
    sk_json_begin_object(&w.doc);
    sk_json_key_string(&w.doc, "version", "2.0");
    sk_json_key_string(&w.doc, "generator", "skelanim");
    sk_json_end_object(&w.doc);
    if (gw_scenes(&w) && gw_nodes(&w) && gw_images_textures(&w) && gw_meshes(&w) && gw_materials(&w) &&
        gw_skins(&w) && gw_animations(&w) &&
        w.accessor_count + w.view_count) {
        sk_json_end_array(&w.views);
        sk_json_end_array(&w.accessors);
        if (w.accessor_count) {
            sk_json_key(&w.doc, "accessors");
            sk_json_raw(&w.doc, w.accessors.buf, w.accessors.len);
        }
        sk_json_key(&w.doc, "bufferViews");
        sk_json_raw(&w.doc, w.views.buf, w.views.len);
        sk_json_key(&w.doc, "buffers");
        sk_json_begin_array(&w.doc);
        sk_json_begin_object(&w.doc);
        sk_json_key_uint(&w.doc, "byteLength", w.bin_size);
        sk_json_end_object(&w.doc);
        sk_json_end_array(&w.doc);
    }
    sk_json_end_object(&w.doc);
    gw_ok(&w);
    if (w.status == SK_OK) {
        size_t jlen = w.doc.len, jpad = (jlen + 3) & ~(size_t)3;
        size_t total = 12 + 8 + jpad + (w.bin_size ? 8 + w.bin_size : 0);
        if (total > 0xFFFFFFFFu) {
            gw_fail(&w, SK_ERR_LIMIT, "the file would exceed 4 GiB");
        } else {
            uint8_t *p = sk_alloc(w.alloc, total);
            if (!p) {
                gw_fail(&w, SK_ERR_OUT_OF_MEMORY, "out of memory");
            } else {
                gw_put32(p, GLB_MAGIC);
                gw_put32(p + 4, 2);
                gw_put32(p + 8, (uint32_t)total);
                gw_put32(p + 12, (uint32_t)jpad);
                gw_put32(p + 16, GLB_JSON);
                memcpy(p + 20, w.doc.buf, jlen);
                memset(p + 20 + jlen, ' ', jpad - jlen);
                if (w.bin_size) {
                    uint8_t *b = p + 20 + jpad;
                    gw_put32(b, (uint32_t)w.bin_size);
                    gw_put32(b + 4, GLB_BIN);
                    memcpy(b + 8, w.bin, w.bin_size);
                }
                /* One rule for what is written and what is read: the file
                 * must load with the reader's own checks (world-space bounds,
                 * unit rotations, key order, ...), or it is not written. */
                sk_gltf_options ro;
                memset(&ro, 0, sizeof ro);
                ro.allocator = *w.alloc;
                ro.skip_image_data = true;
                sk_asset *back = NULL;
                sk_error re = {0};
                sk_result rr = sk_gltf_load_memory(p, total, NULL, &ro, &back, &re);
                if (rr != SK_OK) {
                    char msg[sizeof re.message + 64];
                    snprintf(msg, sizeof msg, "the glTF reader would refuse the file: %s", re.message);
                    sk_free(w.alloc, p, total);
                    if (rr == SK_ERR_OUT_OF_MEMORY) gw_fail(&w, rr, "out of memory");
                    else gw_fail(&w, SK_ERR_INVALID_ARGUMENT, msg);
                } else {
                    sk_asset_destroy(back);
                    *out = p;
                    *size = total;
                }
            }
        }
    }
    sk_json_writer_free(&w.doc);
    sk_json_writer_free(&w.views);
    sk_json_writer_free(&w.accessors);
    sk_free(w.alloc, w.mats, w.mat_cap * sizeof *w.mats);
    sk_free(w.alloc, w.image_index, (size_t)(asset->image_count ? asset->image_count : 1) * sizeof *w.image_index);
    sk_free(w.alloc, w.mesh_index, (size_t)(asset->mesh_count ? asset->mesh_count : 1) * sizeof *w.mesh_index);
    sk_free(w.alloc, w.bin, w.bin_cap);
    return w.status;
}

sk_result sk_glb_write_file(const sk_asset *asset, const char *path, const sk_file_io *io, sk_error *err) {
    sk_glb_write_options o;
    memset(&o, 0, sizeof o);
    if (io) o.file_io = *io;
    return sk_glb_write_file_ex(asset, path, &o, err);
}

sk_result sk_glb_write_file_ex(const sk_asset *asset, const char *path, const sk_glb_write_options *opts,
                               sk_error *err) {
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_glb_write_file: path is NULL");
    void *data = NULL;
    size_t size = 0;
    sk_error e = {0};
    sk_result r = sk_glb_write_memory_ex(asset, opts, &data, &size, &e);
    if (r != SK_OK) return sk_error_set(err, r, "%s: %s", path, e.message);
    r = sk_file_write(opts ? &opts->file_io : NULL, path, data, size, err); /* its message starts with the path */
    sk_free(sk_asset_allocator(asset), data, size);
    return r;
}
