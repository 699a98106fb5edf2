/* .glb writer: any sk_asset as a self-contained glTF 2.0 binary.
 *
 * Layout: nodes in the asset's file-node order (node n is joint
 * node_to_joint[n]), one accessor per array, each in its own bufferView,
 * every view 4-byte aligned in the single BIN chunk. Materials are made from
 * the primitives' base colours (deduplicated); textures are not carried.
 * Clips without tracks are left out (glTF animations need one channel). */
#include "core/internal.h"
#include "skelanim/io/gltf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>

#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

#define GL_UNSIGNED_BYTE 5121
#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_FLOAT 5126
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963

typedef struct gw_state {
    const sk_asset *asset;
    const sk_allocator *alloc;
    sk_error *err;
    sk_result status;
    uint8_t *bin;
    size_t bin_size, bin_cap;
    cJSON *root, *views, *accessors;
    int view_count, accessor_count;
} gw_state;

static bool gw_fail(gw_state *w, sk_result code, const char *what) {
    if (w->status == SK_OK) w->status = sk_error_set(w->err, code, "sk_glb_write: %s", what);
    return false;
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

static cJSON *gw_num(double v) { return cJSON_CreateNumber(v); }

static bool gw_add(gw_state *w, cJSON *obj, const char *key, cJSON *item) {
    if (!item || !cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return true;
}
static bool gw_add_num(gw_state *w, cJSON *obj, const char *key, double v) { return gw_add(w, obj, key, gw_num(v)); }
static bool gw_add_str(gw_state *w, cJSON *obj, const char *key, const char *s) {
    return gw_add(w, obj, key, cJSON_CreateString(s));
}
static bool gw_push(gw_state *w, cJSON *arr, cJSON *item) {
    if (!item || !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    return true;
}
static cJSON *gw_floats(const float *v, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *x = gw_num((double)v[i]);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}
/* Adds an array of floats as a member. */
static bool gw_add_floats(gw_state *w, cJSON *obj, const char *key, const float *v, size_t n) {
    return gw_add(w, obj, key, gw_floats(v, n));
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
static int gw_accessor(gw_state *w, const gw_accessor_desc *d) {
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
    size_t off = gw_bin_append(w, d->data, bytes);
    if (off == SIZE_MAX) return -1;
    cJSON *view = cJSON_CreateObject();
    if (!gw_push(w, w->views, view)) return -1;
    gw_add_num(w, view, "buffer", 0);
    if (off) gw_add_num(w, view, "byteOffset", (double)off);
    gw_add_num(w, view, "byteLength", (double)bytes);
    if (d->target) gw_add_num(w, view, "target", d->target);
    cJSON *acc = cJSON_CreateObject();
    if (!gw_push(w, w->accessors, acc)) return -1;
    gw_add_num(w, acc, "bufferView", w->view_count++);
    gw_add_num(w, acc, "componentType", d->component);
    if (d->normalized) gw_add(w, acc, "normalized", cJSON_CreateTrue());
    gw_add_num(w, acc, "count", (double)d->count);
    gw_add_str(w, acc, "type", d->type);
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
        gw_add_floats(w, acc, "min", mn, (size_t)c);
        gw_add_floats(w, acc, "max", mx, (size_t)c);
    }
    return w->status == SK_OK ? w->accessor_count++ : -1;
}

static int gw_float_accessor(gw_state *w, const float *data, size_t count, int comps, int target, bool min_max) {
    static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4", "", "", "", "", "", "", "", "", "",
                                        "", "", "MAT4"};
    gw_accessor_desc d = {data, count, GL_FLOAT, types[comps], comps, target, min_max, false};
    return gw_accessor(w, &d);
}

static bool gw_all_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!sk_isfinite_f(v[i])) return false;
    return true;
}

/* ---- validation of the input asset ------------------------------------------- */

/* What sk_asset_validate checks, plus what a glTF file needs on top. */
static bool gw_check_asset(gw_state *w) {
    const sk_asset *a = w->asset;
    sk_error e;
    if (sk_asset_validate(a, &e) != SK_OK) return gw_fail(w, SK_ERR_INVALID_ARGUMENT, e.message);
    char msg[200];
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const sk_mesh *m = &a->meshes[i];
        if (m->primitive_count == 0) {
            snprintf(msg, sizeof msg, "mesh %u has no primitives", i);
            return gw_fail(w, SK_ERR_INVALID_ARGUMENT, msg);
        }
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            if (!m->primitives[p].positions || m->primitives[p].vertex_count == 0) {
                snprintf(msg, sizeof msg, "mesh %u primitive %u has no positions", i, p);
                return gw_fail(w, SK_ERR_INVALID_ARGUMENT, msg);
            }
        }
    }
    for (uint32_t i = 0; i < a->skin_count; i++)
        if (a->skins[i].joint_count == 0) {
            snprintf(msg, sizeof msg, "skin %u has no joints", i);
            return gw_fail(w, SK_ERR_INVALID_ARGUMENT, msg);
        }
    return true;
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
    cJSON *nodes = cJSON_CreateArray();
    if (!gw_add(w, w->root, "nodes", nodes)) return false;
    for (uint32_t n = 0; n < s->joint_count && w->status == SK_OK; n++) {
        uint32_t j = gw_joint(a, n);
        cJSON *node = cJSON_CreateObject();
        if (!gw_push(w, nodes, node)) return false;
        if (s->names[j] && s->names[j][0]) gw_add_str(w, node, "name", s->names[j]);
        cJSON *children = NULL;
        for (uint32_t c = j + 1; c < s->joint_count; c++)
            if (s->parents[c] == (int32_t)j) {
                if (!children && !gw_add(w, node, "children", children = cJSON_CreateArray())) return false;
                gw_push(w, children, gw_num(gw_node(a, c)));
            }
        const sk_transform *x = &s->rest[j];
        float t[3] = {x->t.x, x->t.y, x->t.z}, r[4] = {x->r.x, x->r.y, x->r.z, x->r.w}, sc[3] = {x->s.x, x->s.y, x->s.z};
        if (!gw_all_finite(t, 3) || !gw_all_finite(r, 4) || !gw_all_finite(sc, 3))
            return gw_fail(w, SK_ERR_INVALID_ARGUMENT, "a rest transform is not finite");
        if (t[0] != 0 || t[1] != 0 || t[2] != 0) gw_add_floats(w, node, "translation", t, 3);
        if (r[0] != 0 || r[1] != 0 || r[2] != 0 || r[3] != 1) gw_add_floats(w, node, "rotation", r, 4);
        if (sc[0] != 1 || sc[1] != 1 || sc[2] != 1) gw_add_floats(w, node, "scale", sc, 3);
        int32_t mesh = a->joint_mesh ? a->joint_mesh[j] : -1;
        int32_t skin = a->joint_skin ? a->joint_skin[j] : -1;
        if (mesh >= 0) {
            gw_add_num(w, node, "mesh", mesh);
            if (skin >= 0) gw_add_num(w, node, "skin", skin);
            const sk_mesh *m = &a->meshes[mesh];
            if (s->weight_count && s->weight_count[j] && s->weight_count[j] == m->weight_count)
                gw_add_floats(w, node, "weights", s->rest_weights + s->weight_offset[j], s->weight_count[j]);
        }
    }
    return w->status == SK_OK;
}

typedef struct gw_material {
    float color[4];
} gw_material;

static bool gw_meshes(gw_state *w) {
    const sk_asset *a = w->asset;
    if (a->mesh_count == 0) return true;
    cJSON *meshes = cJSON_CreateArray();
    if (!gw_add(w, w->root, "meshes", meshes)) return false;
    /* Materials: one per distinct base colour among primitives that had a
     * material or a non-white colour. */
    size_t prim_total = 0;
    for (uint32_t i = 0; i < a->mesh_count; i++) prim_total += a->meshes[i].primitive_count;
    gw_material *mats = sk_alloc(w->alloc, prim_total * sizeof *mats);
    if (!mats) return gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory");
    size_t mat_count = 0;
    void *scratch = NULL;
    size_t scratch_size = 0;

    for (uint32_t i = 0; i < a->mesh_count && w->status == SK_OK; i++) {
        const sk_mesh *m = &a->meshes[i];
        cJSON *mesh = cJSON_CreateObject();
        if (!gw_push(w, meshes, mesh)) break;
        if (m->name && m->name[0]) gw_add_str(w, mesh, "name", m->name);
        cJSON *prims = cJSON_CreateArray();
        if (!gw_add(w, mesh, "primitives", prims)) break;
        for (uint32_t p = 0; p < m->primitive_count && w->status == SK_OK; p++) {
            const sk_primitive *pr = &m->primitives[p];
            size_t vc = pr->vertex_count;
            cJSON *prim = cJSON_CreateObject(), *attr = cJSON_CreateObject();
            if (!gw_push(w, prims, prim) || !gw_add(w, prim, "attributes", attr)) break;
            gw_add_num(w, attr, "POSITION", gw_float_accessor(w, pr->positions, vc, 3, GL_ARRAY_BUFFER, true));
            if (pr->normals) gw_add_num(w, attr, "NORMAL", gw_float_accessor(w, pr->normals, vc, 3, GL_ARRAY_BUFFER, false));
            if (pr->tangents)
                gw_add_num(w, attr, "TANGENT", gw_float_accessor(w, pr->tangents, vc, 4, GL_ARRAY_BUFFER, false));
            if (pr->texcoords)
                gw_add_num(w, attr, "TEXCOORD_0", gw_float_accessor(w, pr->texcoords, vc, 2, GL_ARRAY_BUFFER, false));
            uint32_t ic = pr->influence_count;
            if (ic) {
                uint16_t maxj = 0;
                for (size_t k = 0; k < vc * ic; k++)
                    if (pr->joints[k] > maxj) maxj = pr->joints[k];
                bool bytes = maxj < 256;
                size_t need = vc * 4 * (bytes ? 1 : 2) + vc * 4 * sizeof(float);
                if (need > scratch_size) {
                    void *q = sk_realloc(w->alloc, scratch, scratch_size, need);
                    if (!q) { gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
                    scratch = q;
                    scratch_size = need;
                }
                for (uint32_t set = 0; set < ic / 4; set++) {
                    float *wts = scratch;
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
                    gw_add_num(w, attr, set ? "JOINTS_1" : "JOINTS_0", gw_accessor(w, &jd));
                    gw_add_num(w, attr, set ? "WEIGHTS_1" : "WEIGHTS_0",
                               gw_float_accessor(w, wts, vc, 4, GL_ARRAY_BUFFER, false));
                }
            }
            if (pr->indices && pr->index_count) {
                uint32_t maxi = 0;
                for (uint32_t k = 0; k < pr->index_count; k++)
                    if (pr->indices[k] > maxi) maxi = pr->indices[k];
                if (maxi < 65535) { /* 65535 is the primitive-restart value */
                    size_t need = (size_t)pr->index_count * 2;
                    if (need > scratch_size) {
                        void *q = sk_realloc(w->alloc, scratch, scratch_size, need);
                        if (!q) { gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
                        scratch = q;
                        scratch_size = need;
                    }
                    uint16_t *ix = scratch;
                    for (uint32_t k = 0; k < pr->index_count; k++) ix[k] = (uint16_t)pr->indices[k];
                    gw_accessor_desc id = {ix, pr->index_count, GL_UNSIGNED_SHORT, "SCALAR", 1,
                                           GL_ELEMENT_ARRAY_BUFFER, false, false};
                    gw_add_num(w, prim, "indices", gw_accessor(w, &id));
                } else {
                    gw_accessor_desc id = {pr->indices, pr->index_count, GL_UNSIGNED_INT, "SCALAR", 1,
                                           GL_ELEMENT_ARRAY_BUFFER, false, false};
                    gw_add_num(w, prim, "indices", gw_accessor(w, &id));
                }
            }
            if (pr->mode != 4) gw_add_num(w, prim, "mode", pr->mode);
            /* material */
            const float *c = pr->base_color;
            bool white = c[0] == 1 && c[1] == 1 && c[2] == 1 && c[3] == 1;
            if (pr->material >= 0 || !white) {
                size_t k = 0;
                while (k < mat_count && memcmp(mats[k].color, c, sizeof mats[k].color) != 0) k++;
                if (k == mat_count) memcpy(mats[mat_count++].color, c, sizeof mats[k].color);
                gw_add_num(w, prim, "material", (double)k);
            }
            if (pr->target_count) {
                cJSON *targets = cJSON_CreateArray();
                if (!gw_add(w, prim, "targets", targets)) break;
                for (uint32_t t = 0; t < pr->target_count && w->status == SK_OK; t++) {
                    const sk_morph_target *mt = &pr->targets[t];
                    cJSON *tg = cJSON_CreateObject();
                    if (!gw_push(w, targets, tg)) break;
                    if (mt->positions)
                        gw_add_num(w, tg, "POSITION", gw_float_accessor(w, mt->positions, vc, 3, GL_ARRAY_BUFFER, true));
                    if (mt->normals)
                        gw_add_num(w, tg, "NORMAL", gw_float_accessor(w, mt->normals, vc, 3, GL_ARRAY_BUFFER, false));
                    if (mt->tangents)
                        gw_add_num(w, tg, "TANGENT", gw_float_accessor(w, mt->tangents, vc, 3, GL_ARRAY_BUFFER, false));
                }
            }
        }
        if (m->weight_count && m->default_weights && w->status == SK_OK)
            gw_add_floats(w, mesh, "weights", m->default_weights, m->weight_count);
    }
    sk_free(w->alloc, scratch, scratch_size);
    if (mat_count && w->status == SK_OK) {
        cJSON *materials = cJSON_CreateArray();
        if (gw_add(w, w->root, "materials", materials))
            for (size_t k = 0; k < mat_count && w->status == SK_OK; k++) {
                cJSON *mat = cJSON_CreateObject(), *pbr = cJSON_CreateObject();
                if (!gw_push(w, materials, mat) || !gw_add(w, mat, "pbrMetallicRoughness", pbr)) break;
                gw_add_floats(w, pbr, "baseColorFactor", mats[k].color, 4);
                /* A matte, non-metallic surface (glTF's defaults are metal 1, rough 1). */
                gw_add_num(w, pbr, "metallicFactor", 0);
                gw_add_num(w, pbr, "roughnessFactor", 0.8);
            }
    }
    sk_free(w->alloc, mats, prim_total * sizeof *mats);
    return w->status == SK_OK;
}

static bool gw_skins(gw_state *w) {
    const sk_asset *a = w->asset;
    if (a->skin_count == 0) return true;
    cJSON *skins = cJSON_CreateArray();
    if (!gw_add(w, w->root, "skins", skins)) return false;
    for (uint32_t i = 0; i < a->skin_count && w->status == SK_OK; i++) {
        const sk_skin *sk = &a->skins[i];
        cJSON *skin = cJSON_CreateObject(), *joints = cJSON_CreateArray();
        if (!gw_push(w, skins, skin)) break;
        if (sk->name && sk->name[0]) gw_add_str(w, skin, "name", sk->name);
        if (sk->inverse_bind)
            gw_add_num(w, skin, "inverseBindMatrices",
                       gw_float_accessor(w, sk->inverse_bind[0].m, sk->joint_count, 16, 0, false));
        if (sk->skeleton_root >= 0) gw_add_num(w, skin, "skeleton", gw_node(a, (uint32_t)sk->skeleton_root));
        if (!gw_add(w, skin, "joints", joints)) break;
        for (uint32_t k = 0; k < sk->joint_count; k++) gw_push(w, joints, gw_num(gw_node(a, sk->joints[k])));
    }
    return w->status == SK_OK;
}

static bool gw_scenes(gw_state *w) {
    const sk_asset *a = w->asset;
    if (a->scene_count == 0) return true;
    cJSON *scenes = cJSON_CreateArray();
    if (!gw_add(w, w->root, "scenes", scenes)) return false;
    for (uint32_t i = 0; i < a->scene_count && w->status == SK_OK; i++) {
        const sk_scene *sc = &a->scenes[i];
        cJSON *scene = cJSON_CreateObject();
        if (!gw_push(w, scenes, scene)) break;
        if (sc->name && sc->name[0]) gw_add_str(w, scene, "name", sc->name);
        if (sc->root_count) {
            cJSON *nodes = cJSON_CreateArray();
            if (!gw_add(w, scene, "nodes", nodes)) break;
            for (uint32_t k = 0; k < sc->root_count; k++) gw_push(w, nodes, gw_num(gw_node(a, sc->roots[k])));
        }
    }
    if (a->default_scene >= 0 && (uint32_t)a->default_scene < a->scene_count)
        gw_add_num(w, w->root, "scene", a->default_scene);
    return w->status == SK_OK;
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
    int accessor;
} gw_input;

static bool gw_animations(gw_state *w) {
    const sk_asset *a = w->asset;
    uint32_t written = 0;
    for (uint32_t c = 0; c < a->clip_count; c++) written += sk_clip_track_count(a->clips[c]) > 0;
    if (written == 0) return true;
    cJSON *anims = cJSON_CreateArray();
    if (!gw_add(w, w->root, "animations", anims)) return false;
    for (uint32_t c = 0; c < a->clip_count && w->status == SK_OK; c++) {
        const sk_clip *clip = a->clips[c];
        uint32_t tracks = sk_clip_track_count(clip);
        if (tracks == 0) continue;
        cJSON *anim = cJSON_CreateObject(), *channels = cJSON_CreateArray(), *samplers = cJSON_CreateArray();
        if (!gw_push(w, anims, anim)) break;
        const char *name = sk_clip_name(clip);
        if (name && name[0]) gw_add_str(w, anim, "name", name);
        if (!gw_add(w, anim, "channels", channels) || !gw_add(w, anim, "samplers", samplers)) break;
        gw_input *inputs = sk_alloc(w->alloc, (size_t)tracks * sizeof *inputs);
        if (!inputs) { gw_fail(w, SK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
        uint32_t input_count = 0;
        float max_time = 0;
        for (uint32_t t = 0; t < tracks && w->status == SK_OK; t++) {
            sk_track_info info;
            if (!sk_clip_track_info(clip, t, &info)) { gw_fail(w, SK_ERR_INVALID_ARGUMENT, "bad clip track"); break; }
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
            int input = -1;
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
            int output = info.path == SK_PATH_WEIGHTS
                             ? gw_float_accessor(w, vals, nvals, 1, 0, false)
                             : gw_float_accessor(w, vals, (size_t)info.key_count * (per_key / info.width),
                                                 (int)info.width, 0, false);
            sk_free(w->alloc, times, (size_t)info.key_count * sizeof(float));
            sk_free(w->alloc, vals, nvals * sizeof(float));
            if (w->status != SK_OK) break;
            cJSON *sampler = cJSON_CreateObject(), *channel = cJSON_CreateObject(), *target = cJSON_CreateObject();
            if (!gw_push(w, samplers, sampler) || !gw_push(w, channels, channel)) {
                cJSON_Delete(target);
                break;
            }
            gw_add_num(w, sampler, "input", input);
            gw_add_str(w, sampler, "interpolation", gw_interp_name(info.interpolation));
            gw_add_num(w, sampler, "output", output);
            gw_add_num(w, channel, "sampler", (double)t);
            if (!gw_add(w, channel, "target", target)) break;
            gw_add_num(w, target, "node", gw_node(a, info.joint));
            gw_add_str(w, target, "path", gw_path_name(info.path));
        }
        for (uint32_t k = 0; k < input_count; k++)
            sk_free(w->alloc, (void *)inputs[k].times, (size_t)inputs[k].count * sizeof(float));
        sk_free(w->alloc, inputs, (size_t)tracks * sizeof *inputs);
        /* A clip set to loop longer than its keys keeps its length here. */
        float dur = sk_clip_duration(clip);
        if (w->status == SK_OK && dur != max_time) {
            cJSON *extras = cJSON_CreateObject();
            if (gw_add(w, anim, "extras", extras)) gw_add_num(w, extras, "duration", (double)dur);
        }
    }
    return w->status == SK_OK;
}

/* ---- container ------------------------------------------------------------------ */

static void gw_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

sk_result sk_glb_write_memory(const sk_asset *asset, void **out, size_t *size, sk_error *err) {
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
    if (!gw_check_asset(&w)) return w.status;

    w.root = cJSON_CreateObject();
    if (!w.root) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_glb_write: out of memory");
    cJSON *info = cJSON_CreateObject();
    if (gw_add(&w, w.root, "asset", info)) {
        gw_add_str(&w, info, "version", "2.0");
        gw_add_str(&w, info, "generator", "skelanim");
    }
    w.views = cJSON_CreateArray();
    w.accessors = cJSON_CreateArray();
    if (w.status == SK_OK && gw_scenes(&w) && gw_nodes(&w) && gw_meshes(&w) && gw_skins(&w) && gw_animations(&w)) {
        if (w.accessor_count) {
            gw_add(&w, w.root, "accessors", w.accessors);
            gw_add(&w, w.root, "bufferViews", w.views);
            w.accessors = w.views = NULL;
            cJSON *buffers = cJSON_CreateArray(), *buf = cJSON_CreateObject();
            if (gw_add(&w, w.root, "buffers", buffers) && gw_push(&w, buffers, buf))
                gw_add_num(&w, buf, "byteLength", (double)w.bin_size);
        }
    }
    cJSON_Delete(w.accessors);
    cJSON_Delete(w.views);
    char *json = w.status == SK_OK ? cJSON_PrintUnformatted(w.root) : NULL;
    cJSON_Delete(w.root);
    if (w.status == SK_OK && !json) gw_fail(&w, SK_ERR_OUT_OF_MEMORY, "out of memory printing JSON");
    if (w.status == SK_OK) {
        size_t jlen = strlen(json), jpad = (jlen + 3) & ~(size_t)3;
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
                memcpy(p + 20, json, jlen);
                memset(p + 20 + jlen, ' ', jpad - jlen);
                if (w.bin_size) {
                    uint8_t *b = p + 20 + jpad;
                    gw_put32(b, (uint32_t)w.bin_size);
                    gw_put32(b + 4, GLB_BIN);
                    memcpy(b + 8, w.bin, w.bin_size);
                }
                *out = p;
                *size = total;
            }
        }
    }
    if (json) cJSON_free(json);
    sk_free(w.alloc, w.bin, w.bin_cap);
    return w.status;
}

sk_result sk_glb_write_file(const sk_asset *asset, const char *path, sk_error *err) {
    if (!path) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_glb_write_file: path is NULL");
    void *data = NULL;
    size_t size = 0;
    sk_result r = sk_glb_write_memory(asset, &data, &size, err);
    if (r != SK_OK) return r;
    const sk_allocator *alloc = sk_asset_allocator(asset);
    FILE *f = fopen(path, "wb");
    if (!f) {
        r = sk_error_set(err, SK_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    } else {
        size_t n = fwrite(data, 1, size, f);
        int close_err = fclose(f);
        if (n != size || close_err != 0)
            r = sk_error_set(err, SK_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    }
    sk_free(alloc, data, size);
    return r;
}
