/* glTF reader: the document's objects into an sk_asset: meshes and their
 * primitives (§3.7.2), nodes and their hierarchy (§3.5), the skeleton
 * (every node a joint, parent before child), skins (§3.7.3), scenes. */
#include "io/gltf_internal.h"

#include <math.h>
#include <stdio.h>

/* ---- samplers, textures, materials (§3.8, §3.9) ------------------------------ */

static sk_result opt_float(gl_ctx *g, const sk_jv *o, const char *key, const char *path, float def, float *out) {
    *out = def;
    const sk_jv *it = j_get(o, key);
    if (!it) return SK_OK;
    if (!j_is_number(it) || !isfinite(it->valuedouble) || !sk_isfinite_f((float)it->valuedouble))
        return fail(g, SK_ERR_INVALID_DATA, "%s/%s: expected a finite number", path, key);
    *out = (float)it->valuedouble;
    return SK_OK;
}

/* A GL enum from a fixed list (0 when absent). */
static sk_result opt_enum(gl_ctx *g, const sk_jv *o, const char *key, const char *path, const uint32_t *allowed,
                          size_t n, uint32_t def, uint32_t *out) {
    uint64_t v;
    bool present;
    TRY(sk_gl_opt_uint(g, o, key, path, def, 1e9, &v, &present));
    *out = (uint32_t)v;
    if (!present) return SK_OK;
    for (size_t i = 0; i < n; i++)
        if (allowed[i] == v) return SK_OK;
    return fail(g, SK_ERR_INVALID_DATA, "%s/%s: %llu is not a valid value", path, key, (unsigned long long)v);
}

static sk_result load_samplers(gl_ctx *g) {
    static const uint32_t mag[] = {9728, 9729};
    static const uint32_t min[] = {9728, 9729, 9984, 9985, 9986, 9987};
    static const uint32_t wrap[] = {33071, 33648, 10497};
    sk_sampler *smp = sk_asset_alloc(g->asset, (size_t)(g->n_samplers ? g->n_samplers : 1) * sizeof *smp);
    if (!smp) return oom(g);
    char path[64];
    for (uint32_t i = 0; i < g->n_samplers; i++) {
        const sk_jv *o = g->j_samplers[i];
        snprintf(path, sizeof path, "/samplers/%u", i);
        const char *name;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        if (!(smp[i].name = sk_asset_strdup(g->asset, name))) return oom(g);
        TRY(opt_enum(g, o, "magFilter", path, mag, SK_ARRAY_COUNT(mag), 0, &smp[i].mag_filter));
        TRY(opt_enum(g, o, "minFilter", path, min, SK_ARRAY_COUNT(min), 0, &smp[i].min_filter));
        TRY(opt_enum(g, o, "wrapS", path, wrap, SK_ARRAY_COUNT(wrap), 10497, &smp[i].wrap_s));
        TRY(opt_enum(g, o, "wrapT", path, wrap, SK_ARRAY_COUNT(wrap), 10497, &smp[i].wrap_t));
    }
    g->asset->samplers = smp;
    g->asset->sampler_count = g->n_samplers;
    return SK_OK;
}

static sk_result load_textures(gl_ctx *g) {
    sk_texture *tex = sk_asset_alloc(g->asset, (size_t)(g->n_textures ? g->n_textures : 1) * sizeof *tex);
    if (!tex) return oom(g);
    char path[64];
    for (uint32_t i = 0; i < g->n_textures; i++) {
        const sk_jv *o = g->j_textures[i];
        snprintf(path, sizeof path, "/textures/%u", i);
        const char *name;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        if (!(tex[i].name = sk_asset_strdup(g->asset, name))) return oom(g);
        /* An image only in an extension (KHR_texture_basisu, EXT_texture_webp, ...) is not followed. */
        TRY(sk_gl_opt_index(g, o, "source", g->n_images, "image", path, &tex[i].image));
        const sk_jv *ext = j_get(o, "extensions");
        if (tex[i].image < 0 && j_is_object(ext) && j_child(ext) && j_child(ext)->key)
            sk_gl_warn(g, "%s: its image is only in extension %s, which is not read: the texture has no image", path,
                       j_child(ext)->key);
        TRY(sk_gl_opt_index(g, o, "sampler", g->n_samplers, "sampler", path, &tex[i].sampler));
    }
    g->asset->textures = tex;
    g->asset->texture_count = g->n_textures;
    return SK_OK;
}

static sk_result load_materials(gl_ctx *g) {
    sk_material *mats = sk_asset_alloc(g->asset, (size_t)(g->n_materials ? g->n_materials : 1) * sizeof *mats);
    if (!mats) return oom(g);
    char path[64], pp[96], tp[128];
    for (uint32_t i = 0; i < g->n_materials; i++) {
        const sk_jv *o = g->j_materials[i];
        sk_material *m = &mats[i];
        snprintf(path, sizeof path, "/materials/%u", i);
        const char *name, *alpha;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        if (!(m->name = sk_asset_strdup(g->asset, name))) return oom(g);
        m->base_color[0] = m->base_color[1] = m->base_color[2] = m->base_color[3] = 1.0f;
        m->base_color_texture.texture = -1;
        m->metallic = m->roughness = 1.0f;
        const sk_jv *pbr = j_get(o, "pbrMetallicRoughness");
        snprintf(pp, sizeof pp, "%s/pbrMetallicRoughness", path);
        if (pbr && !j_is_object(pbr)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", pp);
        if (pbr) {
            double c[4];
            bool present;
            TRY(sk_gl_opt_numbers(g, pbr, "baseColorFactor", pp, 4, c, &present));
            if (present)
                for (int k = 0; k < 4; k++) m->base_color[k] = (float)c[k];
            TRY(opt_float(g, pbr, "metallicFactor", pp, 1.0f, &m->metallic));
            TRY(opt_float(g, pbr, "roughnessFactor", pp, 1.0f, &m->roughness));
            const sk_jv *bt = j_get(pbr, "baseColorTexture");
            snprintf(tp, sizeof tp, "%s/baseColorTexture", pp);
            if (bt && !j_is_object(bt)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", tp);
            if (bt) {
                uint32_t t = 0; /* (set by sk_gl_req_index on success; a whole-program build cannot see that) */
                uint64_t set = 0;
                TRY(sk_gl_req_index(g, bt, "index", g->n_textures, "texture", tp, &t));
                TRY(sk_gl_opt_uint(g, bt, "texCoord", tp, 0, 4294967295.0, &set, NULL));
                m->base_color_texture.texture = (int32_t)t;
                m->base_color_texture.texcoord = (uint32_t)set;
            }
        }
        TRY(sk_gl_opt_string(g, o, "alphaMode", path, &alpha));
        if (!alpha || strcmp(alpha, "OPAQUE") == 0) m->alpha_mode = SK_ALPHA_OPAQUE;
        else if (strcmp(alpha, "MASK") == 0) m->alpha_mode = SK_ALPHA_MASK;
        else if (strcmp(alpha, "BLEND") == 0) m->alpha_mode = SK_ALPHA_BLEND;
        else return fail(g, SK_ERR_INVALID_DATA, "%s/alphaMode: \"%s\" is not OPAQUE, MASK or BLEND", path, alpha);
        TRY(opt_float(g, o, "alphaCutoff", path, 0.5f, &m->alpha_cutoff));
        if (m->alpha_cutoff < 0.0f) return fail(g, SK_ERR_INVALID_DATA, "%s/alphaCutoff: negative", path);
        const sk_jv *ds = j_get(o, "doubleSided");
        if (ds && !j_is_bool(ds)) return fail(g, SK_ERR_INVALID_DATA, "%s/doubleSided: expected a boolean", path);
        m->double_sided = j_is_true(ds);
    }
    g->asset->materials = mats;
    g->asset->material_count = g->n_materials;
    return SK_OK;
}

sk_result sk_gl_load_looks(gl_ctx *g) {
    TRY(load_samplers(g));
    TRY(load_textures(g));
    return load_materials(g);
}

/* ---- meshes (§3.7.2) ----------------------------------------------------- */

typedef struct attr_rule {
    const char *name, *type;
    unsigned core, quant;
} attr_rule;

/* Vertex attribute: accessor type/component checks, equal counts, and the
 * 4-byte alignment of §3.6.2.4 (accessor.byteOffset a multiple of 4; a
 * defined byteStride already is one). A tightly packed element whose size is
 * not a multiple of 4 is tolerated: it reads safely. */
static sk_result attr_accessor(gl_ctx *g, const sk_jv *attrs, const attr_rule *rule, const char *path,
                               uint32_t *vcount, int32_t *out) {
    *out = -1;
    const sk_jv *it = j_get(attrs, rule->name);
    if (!it) return SK_OK;
    char p[160];
    snprintf(p, sizeof p, "%s/%s", path, rule->name);
    uint32_t ai = 0;
    TRY(sk_gl_acc_ref(g, it, p, rule->type, g->quantization ? rule->quant : rule->core, &ai));
    const gl_acc *a = &g->accs[ai];
    if (*vcount == UINT32_MAX) *vcount = a->count;
    else if (a->count != *vcount)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u has %u elements, other attributes have %u", p, ai,
                    a->count, *vcount);
    if (a->view >= 0 && a->byte_offset % 4 != 0)
        return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u byteOffset %zu is not a multiple of 4 (vertex attribute)",
                    p, ai, a->byte_offset);
    *out = (int32_t)ai;
    return SK_OK;
}

static sk_result read_attr_float(gl_ctx *g, int32_t ai, const char *path, const char *name, const float **out) {
    *out = NULL;
    if (ai < 0) return SK_OK;
    char p[160];
    snprintf(p, sizeof p, "%s/%s", path, name);
    return sk_gl_acc_read_float_shared(g, (uint32_t)ai, p, out); /* decoded once per accessor */
}

static const attr_rule R_POSITION = {"POSITION", "VEC3", CB_F, CB_F | 0xFFu};
static const attr_rule R_NORMAL = {"NORMAL", "VEC3", CB_F, CB_F | CB_BN | CB_SN};
static const attr_rule R_TANGENT = {"TANGENT", "VEC4", CB_F, CB_F | CB_BN | CB_SN};
static const attr_rule R_TEXCOORD = {"TEXCOORD_0", "VEC2", CB_F | CB_UBN | CB_USN, CB_F | 0xFFu};
static const attr_rule R_JOINTS[2] = {{"JOINTS_0", "VEC4", CB_UB | CB_US, CB_UB | CB_US},
                                      {"JOINTS_1", "VEC4", CB_UB | CB_US, CB_UB | CB_US}};
static const attr_rule R_WEIGHTS[2] = {{"WEIGHTS_0", "VEC4", CB_F | CB_UBN | CB_USN, CB_F | CB_UBN | CB_USN},
                                       {"WEIGHTS_1", "VEC4", CB_F | CB_UBN | CB_USN, CB_F | CB_UBN | CB_USN}};
static const attr_rule R_T_POSITION = {"POSITION", "VEC3", CB_F, CB_F | CB_B | CB_BN | CB_S | CB_SN};
static const attr_rule R_T_NORMAL = {"NORMAL", "VEC3", CB_F, CB_F | CB_BN | CB_SN};
static const attr_rule R_T_TANGENT = {"TANGENT", "VEC3", CB_F, CB_F | CB_BN | CB_SN};

/* Checks one accessor a primitive would read: *out gets a message (asset
 * memory) when its buffer has no data. */
static sk_result check_present(gl_ctx *g, const sk_jv *it, const char *where, const char **out) {
    if (*out || !j_is_uint(it, (double)g->n_accessors)) return SK_OK; /* a bad index is reported later */
    uint32_t i = (uint32_t)it->valuedouble;
    const gl_acc *a = &g->accs[i];
    if (a->missing_buffer < 0) return SK_OK;
    const gl_buffer *b = &g->buffers[a->missing_buffer];
    char msg[400];
    snprintf(msg, sizeof msg, "%s: accessor %u needs buffer %d, which has no data: %s", where, i, a->missing_buffer,
             b->unavailable ? b->unavailable : "?");
    if (!(*out = sk_asset_strdup(g->asset, msg))) return oom(g);
    return SK_OK;
}

/* Is the data of every accessor the primitive reads (the attributes we keep,
 * indices, morph targets) in the file? A buffer without data (no uri in a
 * .gltf, or a URL we do not fetch) is valid glTF; such a primitive is loaded
 * empty and says why (sk_primitive.missing_data) instead of failing the
 * load. */
static sk_result primitive_missing(gl_ctx *g, const sk_jv *o, const sk_jv *attrs, const char *path,
                                   const char **out) {
    static const char *const names[] = {"POSITION", "NORMAL",    "TANGENT",   "TEXCOORD_0",
                                        "JOINTS_0", "JOINTS_1", "WEIGHTS_0", "WEIGHTS_1"};
    char where[192];
    *out = NULL;
    for (size_t i = 0; i < SK_ARRAY_COUNT(names); i++) {
        snprintf(where, sizeof where, "%s/attributes/%s", path, names[i]);
        TRY(check_present(g, j_get(attrs, names[i]), where, out));
    }
    snprintf(where, sizeof where, "%s/indices", path);
    TRY(check_present(g, j_get(o, "indices"), where, out));
    const sk_jv *targets = j_get(o, "targets");
    uint32_t k = 0;
    for (const sk_jv *c = j_is_array(targets) ? j_child(targets) : NULL; c; c = j_next(c), k++)
        for (size_t i = 0; i < 3; i++) {
            snprintf(where, sizeof where, "%s/targets/%u/%s", path, k, names[i]);
            TRY(check_present(g, j_get(c, names[i]), where, out));
        }
    return SK_OK;
}

static sk_result load_primitive(gl_ctx *g, const sk_jv *o, const char *path, sk_primitive *prim) {
    const sk_jv *attrs = j_get(o, "attributes");
    if (!j_is_object(attrs)) return fail(g, SK_ERR_INVALID_DATA, "%s/attributes: required object missing", path);
    char ap[128];
    snprintf(ap, sizeof ap, "%s/attributes", path);
    uint64_t mode;
    TRY(sk_gl_opt_uint(g, o, "mode", path, 4, 6, &mode, NULL));
    prim->mode = (uint32_t)mode;
    int32_t mat;
    TRY(sk_gl_opt_index(g, o, "material", g->n_materials, "material", path, &mat));
    prim->material = mat;
    prim->base_color[0] = prim->base_color[1] = prim->base_color[2] = prim->base_color[3] = 1.0f;
    if (mat >= 0) memcpy(prim->base_color, g->asset->materials[mat].base_color, sizeof prim->base_color);
    /* Every attribute value must be an accessor index; attributes we do not
     * read still must not point outside the accessor array. */
    uint32_t vcount = UINT32_MAX;
    for (const sk_jv *c = j_child(attrs); c; c = j_next(c)) {
        if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_accessors)
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s: not a valid accessor index", ap, c->key ? c->key : "?");
        if (c->key && strncmp(c->key, "JOINTS_", 7) == 0 && strcmp(c->key, "JOINTS_0") != 0 &&
            strcmp(c->key, "JOINTS_1") != 0)
            return fail(g, SK_ERR_UNSUPPORTED, "%s/%s: more than 8 joint influences per vertex are not supported", ap,
                        c->key);
        /* §3.7.2.1: all attribute accessors of a primitive have the same count. */
        uint32_t cnt = g->accs[(uint32_t)c->valuedouble].count;
        if (vcount == UINT32_MAX) vcount = cnt;
        else if (cnt != vcount)
            return fail(g, SK_ERR_INVALID_DATA, "%s/%s: accessor count %u differs from the other attributes (%u)", ap,
                        c->key ? c->key : "?", cnt, vcount);
    }
    int32_t pos, nrm, tan, uv, jnt[2], wgt[2];
    TRY(attr_accessor(g, attrs, &R_POSITION, ap, &vcount, &pos));
    TRY(attr_accessor(g, attrs, &R_NORMAL, ap, &vcount, &nrm));
    TRY(attr_accessor(g, attrs, &R_TANGENT, ap, &vcount, &tan));
    TRY(attr_accessor(g, attrs, &R_TEXCOORD, ap, &vcount, &uv));
    for (int s = 0; s < 2; s++) {
        TRY(attr_accessor(g, attrs, &R_JOINTS[s], ap, &vcount, &jnt[s]));
        TRY(attr_accessor(g, attrs, &R_WEIGHTS[s], ap, &vcount, &wgt[s]));
        if ((jnt[s] < 0) != (wgt[s] < 0))
            return fail(g, SK_ERR_INVALID_DATA, "%s: %s without %s", ap, jnt[s] < 0 ? R_WEIGHTS[s].name : R_JOINTS[s].name,
                        jnt[s] < 0 ? R_JOINTS[s].name : R_WEIGHTS[s].name);
    }
    if (jnt[1] >= 0 && jnt[0] < 0) return fail(g, SK_ERR_INVALID_DATA, "%s: JOINTS_1 without JOINTS_0", ap);
    if (vcount == UINT32_MAX) vcount = 0;
    /* Data not in the file: everything is still checked, nothing is read. */
    TRY(primitive_missing(g, o, attrs, path, &prim->missing_data));
    bool read = !prim->missing_data;
    prim->vertex_count = read ? vcount : 0;
    if (read) TRY(read_attr_float(g, pos, ap, "POSITION", &prim->positions));
    if (read && !prim->positions) {
        /* No POSITION (§3.7.2.1 allows it): zeros keep the array usable. */
        size_t bytes;
        if (!sk_size_mul(vcount, 3 * sizeof(float), &bytes)) return oom(g);
        /* Counted like decoded data: a tiny file must not allocate gigabytes of zeros (fuzz finding). */
        TRY(sk_gl_budget(g, bytes, ap, "zero positions for a primitive without POSITION"));
        if (!(prim->positions = sk_asset_alloc(g->asset, bytes))) return oom(g);
    }
    if (read) {
        TRY(read_attr_float(g, nrm, ap, "NORMAL", &prim->normals));
        TRY(read_attr_float(g, tan, ap, "TANGENT", &prim->tangents));
        TRY(read_attr_float(g, uv, ap, "TEXCOORD_0", &prim->texcoords));
    }
    if (jnt[0] >= 0 && read) {
        uint32_t ic = jnt[1] >= 0 ? 8 : 4;
        prim->influence_count = ic;
        size_t n;
        if (!sk_size_mul(vcount, ic, &n)) return oom(g);
        TRY(sk_gl_budget(g, (uint64_t)n * (sizeof(uint16_t) + sizeof(float)), ap, "joint and weight arrays"));
        uint16_t *joints = sk_asset_alloc(g->asset, n * sizeof(uint16_t));
        float *weights = sk_asset_alloc(g->asset, n * sizeof(float));
        if (!joints || !weights) return oom(g);
        for (uint32_t s = 0; s < ic / 4; s++) {
            uint32_t *ju;
            float *wf;
            char p[160];
            snprintf(p, sizeof p, "%s/%s", ap, R_JOINTS[s].name);
            TRY(sk_gl_acc_read_uint(g, (uint32_t)jnt[s], &g->tmp, p, &ju));
            snprintf(p, sizeof p, "%s/%s", ap, R_WEIGHTS[s].name);
            TRY(sk_gl_acc_read_float(g, (uint32_t)wgt[s], &g->tmp, p, &wf));
            for (uint32_t v = 0; v < vcount; v++)
                for (uint32_t k = 0; k < 4; k++) {
                    joints[(size_t)v * ic + s * 4 + k] = (uint16_t)ju[(size_t)v * 4 + k];
                    weights[(size_t)v * ic + s * 4 + k] = wf[(size_t)v * 4 + k];
                }
        }
        prim->joints = joints;
        prim->weights = weights;
    }
    /* Indices (§3.7.2.1): SCALAR unsigned, no byteStride, each < vertex count;
     * the maximum value of the type (primitive restart) is not allowed. */
    const sk_jv *ji = j_get(o, "indices");
    if (ji) {
        char p[128];
        snprintf(p, sizeof p, "%s/indices", path);
        uint32_t ia;
        TRY(sk_gl_acc_ref(g, ji, p, "SCALAR", CB_UB | CB_US | CB_UI, &ia));
        const gl_acc *a = &g->accs[ia];
        if (a->view >= 0 && g->views[a->view].stride)
            return fail(g, SK_ERR_INVALID_DATA, "%s: bufferView %d of index accessor %u has a byteStride", p, a->view, ia);
        if (read) {
            uint32_t *idx;
            TRY(sk_gl_acc_read_uint(g, ia, asset_arena(g), p, &idx));
            uint32_t restart =
                a->comp_type == GL_UNSIGNED_BYTE ? 0xFFu : a->comp_type == GL_UNSIGNED_SHORT ? 0xFFFFu : 0xFFFFFFFFu;
            for (uint32_t i = 0; i < a->count; i++) {
                if (idx[i] == restart)
                    return fail(g, SK_ERR_INVALID_DATA, "%s: index %u is the primitive restart value %u", p, i, restart);
                if (idx[i] >= vcount)
                    return fail(g, SK_ERR_INVALID_DATA, "%s: index %u is %u, not below the vertex count %u", p, i,
                                idx[i], vcount);
            }
            prim->indices = idx;
            prim->index_count = a->count;
        }
    }
    /* Morph targets (§3.7.2.2). */
    const sk_jv *targets;
    uint32_t tc;
    TRY(sk_gl_array_len(g, o, "targets", path, &targets, &tc));
    if (tc) {
        sk_morph_target *t = sk_asset_alloc(g->asset, (size_t)tc * sizeof *t);
        if (!t) return oom(g);
        uint32_t k = 0;
        for (const sk_jv *c = j_child(targets); c; c = j_next(c), k++) {
            char tp[128];
            snprintf(tp, sizeof tp, "%s/targets/%u", path, k);
            if (!j_is_object(c)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", tp);
            for (const sk_jv *x = j_child(c); x; x = j_next(x)) {
                if (!j_is_uint(x, 4294967296.0) || x->valuedouble >= g->n_accessors)
                    return fail(g, SK_ERR_INVALID_DATA, "%s/%s: not a valid accessor index", tp, x->key ? x->key : "?");
                if (x->key && !j_get(attrs, x->key))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/%s: morph target attribute without a base attribute", tp,
                                x->key);
                if (g->accs[(uint32_t)x->valuedouble].count != vcount)
                    return fail(g, SK_ERR_INVALID_DATA, "%s/%s: accessor count %u differs from the vertex count %u", tp,
                                x->key ? x->key : "?", g->accs[(uint32_t)x->valuedouble].count, vcount);
            }
            int32_t tpos, tnrm, ttan;
            uint32_t vc = vcount;
            TRY(attr_accessor(g, c, &R_T_POSITION, tp, &vc, &tpos));
            TRY(attr_accessor(g, c, &R_T_NORMAL, tp, &vc, &tnrm));
            TRY(attr_accessor(g, c, &R_T_TANGENT, tp, &vc, &ttan));
            if (!read) continue;
            TRY(read_attr_float(g, tpos, tp, "POSITION", &t[k].positions));
            TRY(read_attr_float(g, tnrm, tp, "NORMAL", &t[k].normals));
            TRY(read_attr_float(g, ttan, tp, "TANGENT", &t[k].tangents));
        }
        prim->targets = t;
        prim->target_count = tc;
    }
    return SK_OK;
}

sk_result sk_gl_load_meshes(gl_ctx *g) {
    sk_mesh *meshes = sk_asset_alloc(g->asset, (size_t)(g->n_meshes ? g->n_meshes : 1) * sizeof *meshes);
    if (!meshes) return oom(g);
    for (uint32_t m = 0; m < g->n_meshes; m++) {
        const sk_jv *o = g->j_meshes[m];
        char path[64];
        gl_path(path, sizeof path, "/meshes/", m, NULL);
        const char *name;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        if (!(meshes[m].name = sk_asset_strdup(g->asset, name))) return oom(g);
        const sk_jv *prims;
        uint32_t pc;
        TRY(sk_gl_array_len(g, o, "primitives", path, &prims, &pc));
        if (pc == 0) return fail(g, SK_ERR_INVALID_DATA, "%s/primitives: required non-empty array missing", path);
        sk_primitive *p = sk_asset_alloc(g->asset, (size_t)pc * sizeof *p);
        if (!p) return oom(g);
        uint32_t k = 0;
        for (const sk_jv *c = j_child(prims); c; c = j_next(c), k++) {
            char pp[96];
            snprintf(pp, sizeof pp, "%s/primitives/%u", path, k);
            if (!j_is_object(c)) return fail(g, SK_ERR_INVALID_DATA, "%s: expected an object", pp);
            TRY(load_primitive(g, c, pp, &p[k]));
            /* §3.7.2.2: every primitive has the same number of targets. */
            if (p[k].target_count != p[0].target_count)
                return fail(g, SK_ERR_INVALID_DATA, "%s/targets: %u morph targets, primitive 0 has %u", pp,
                            p[k].target_count, p[0].target_count);
        }
        meshes[m].primitives = p;
        meshes[m].primitive_count = pc;
        meshes[m].weight_count = p[0].target_count;
        const sk_jv *jw = j_get(o, "weights");
        if (jw) {
            uint32_t wc = meshes[m].weight_count;
            if (!j_is_array(jw) || j_size(jw) != (int)wc || wc == 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/weights: expected %u numbers (the morph target count)", path, wc);
            float *dw = sk_asset_alloc(g->asset, (size_t)wc * sizeof(float));
            if (!dw) return oom(g);
            uint32_t i = 0;
            for (const sk_jv *c = j_child(jw); c; c = j_next(c), i++) {
                if (!j_is_number(c) || !isfinite(c->valuedouble))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/weights/%u: expected a finite number", path, i);
                dw[i] = (float)c->valuedouble;
            }
            meshes[m].default_weights = dw;
        }
    }
    g->asset->meshes = meshes;
    g->asset->mesh_count = g->n_meshes;
    return SK_OK;
}

/* ---- nodes (§3.5.2 Nodes and Hierarchy, §3.5.3 Transformations) -------- */

sk_result sk_gl_load_nodes(gl_ctx *g) {
    g->nodes = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof *g->nodes);
    if (!g->nodes) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) g->nodes[i].parent = -1;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const sk_jv *o = g->j_nodes[i];
        gl_node *n = &g->nodes[i];
        char path[64];
        gl_path(path, sizeof path, "/nodes/", i, NULL);
        int32_t cam;
        TRY(sk_gl_opt_index(g, o, "mesh", g->n_meshes, "mesh", path, &n->mesh));
        TRY(sk_gl_opt_index(g, o, "skin", g->n_skins, "skin", path, &n->skin));
        TRY(sk_gl_opt_index(g, o, "camera", g->n_cameras, "camera", path, &cam));
        const sk_jv *ch;
        uint32_t cc;
        TRY(sk_gl_array_len(g, o, "children", path, &ch, &cc));
        uint32_t k = 0;
        for (const sk_jv *c = ch ? j_child(ch) : NULL; c; c = j_next(c), k++) {
            if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_nodes)
                return fail(g, SK_ERR_INVALID_DATA, "%s/children/%u: not a valid node index (%u nodes)", path, k,
                            g->n_nodes);
            uint32_t child = (uint32_t)c->valuedouble;
            if (child == i) return fail(g, SK_ERR_INVALID_DATA, "%s/children/%u: node is its own child", path, k);
            /* §3.5.2: a node has at most one parent (the hierarchy is a forest). */
            if (g->nodes[child].parent >= 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/children/%u: node %u already has parent %d", path, k, child,
                            g->nodes[child].parent);
            g->nodes[child].parent = (int32_t)i;
        }
        double t[3], r[4], s[3], m[16];
        bool ht, hr, hs, hm;
        TRY(sk_gl_opt_numbers(g, o, "translation", path, 3, t, &ht));
        TRY(sk_gl_opt_numbers(g, o, "rotation", path, 4, r, &hr));
        TRY(sk_gl_opt_numbers(g, o, "scale", path, 3, s, &hs));
        TRY(sk_gl_opt_numbers(g, o, "matrix", path, 16, m, &hm));
        sk_transform x = sk_transform_identity();
        if (ht) x.t = sk_vec3_make((float)t[0], (float)t[1], (float)t[2]);
        if (hr) x.r = sk_quat_make((float)r[0], (float)r[1], (float)r[2], (float)r[3]);
        if (hs) x.s = sk_vec3_make((float)s[0], (float)s[1], (float)s[2]);
        for (int q = 0; q < 4; q++)
            if (hr && !sk_isfinite_f((&x.r.x)[q]))
                return fail(g, SK_ERR_INVALID_DATA, "%s/rotation: value is not finite as a float", path);
        if (hr && x.r.x == 0.0f && x.r.y == 0.0f && x.r.z == 0.0f && x.r.w == 0.0f)
            return fail(g, SK_ERR_INVALID_DATA, "%s/rotation: zero quaternion", path);
        if (hr) {
            /* The validator's unit-length tolerance (as for rotation keys); the skeleton stores it normalised. */
            double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
            if (fabs(len - 1.0) > 0.00769)
                sk_gl_warn(g, "%s/rotation: not a unit quaternion (length %g): normalised", path, len);
        }
        for (int q = 0; q < 3; q++)
            if (!sk_isfinite_f((&x.t.x)[q]) || !sk_isfinite_f((&x.s.x)[q]))
                return fail(g, SK_ERR_INVALID_DATA, "%s: translation or scale is not finite as a float", path);
        if (hm) {
            /* §3.5.3: matrix and TRS are exclusive; a matrix must decompose. */
            if (ht || hr || hs)
                return fail(g, SK_ERR_INVALID_DATA, "%s/matrix: defined together with translation/rotation/scale", path);
            sk_mat4 mm;
            bool ident = true;
            for (int q = 0; q < 16; q++) {
                mm.m[q] = (float)m[q];
                if (!sk_isfinite_f(mm.m[q]))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/matrix/%d: value is not finite as a float", path, q);
                if (mm.m[q] != ((q % 5 == 0) ? 1.0f : 0.0f)) ident = false;
            }
            n->has_matrix = true;
            n->matrix_identity = ident;
            if (!ident && !sk_mat4_decompose(&mm, &x))
                return fail(g, SK_ERR_INVALID_DATA, "%s/matrix: not decomposable into translation/rotation/scale", path);
        }
        n->rest = x;
        const sk_jv *w = j_get(o, "weights");
        if (w) {
            if (n->mesh < 0) return fail(g, SK_ERR_INVALID_DATA, "%s/weights: defined without a mesh", path);
            uint32_t wc = g->asset->meshes[n->mesh].weight_count;
            if (!j_is_array(w) || j_size(w) != (int)wc || wc == 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/weights: expected %u numbers (mesh %d morph targets)", path, wc,
                            n->mesh);
            uint32_t q = 0;
            for (const sk_jv *c = j_child(w); c; c = j_next(c), q++)
                if (!j_is_number(c) || !isfinite(c->valuedouble))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/weights/%u: expected a finite number", path, q);
            n->weights = w;
        }
        if (n->skin >= 0 && n->mesh < 0)
            return fail(g, SK_ERR_INVALID_DATA, "%s/skin: a skin requires a mesh on the node", path);
    }
    /* Cycle detection: every node has at most one parent, so a cycle is a
     * parent chain that returns to a node visited in the same walk. */
    uint32_t *stamp = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof *stamp);
    if (!stamp) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) stamp[i] = UINT32_MAX;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        uint32_t n = i;
        while (stamp[n] == UINT32_MAX) {
            stamp[n] = i;
            if (g->nodes[n].parent < 0) break;
            n = (uint32_t)g->nodes[n].parent;
            if (stamp[n] == i)
                return fail(g, SK_ERR_INVALID_DATA, "/nodes/%u/children: the node hierarchy has a cycle through node %u",
                            (uint32_t)g->nodes[n].parent, n);
        }
    }
    return SK_OK;
}

/* sk_skeleton_sort places nodes depth-first (pre-order), so a subtree is
 * the contiguous joint range [j, j + subtree[j]): ancestry is O(1). */
static bool is_ancestor_or_self(const gl_ctx *g, uint32_t anc, uint32_t n) {
    uint32_t ja = g->asset->node_to_joint[anc], jn = g->asset->node_to_joint[n];
    return jn >= ja && jn - ja < g->subtree[ja];
}

static uint32_t root_of(const gl_ctx *g, uint32_t n) { return g->root_joint[g->asset->node_to_joint[n]]; }

/* ---- skeleton and mappings ---------------------------------------------- */

sk_result sk_gl_build_skeleton(gl_ctx *g) {
    uint32_t n = g->n_nodes;
    size_t n1 = n ? n : 1;
    int32_t *parents = tmp_alloc(g, n1, sizeof(int32_t));
    uint32_t *order = tmp_alloc(g, n1, sizeof(uint32_t));
    uint32_t *scratch = tmp_alloc(g, n1, 3 * sizeof(uint32_t));
    uint32_t *n2j = sk_asset_alloc(g->asset, n1 * sizeof(uint32_t));
    uint32_t *j2n = sk_asset_alloc(g->asset, n1 * sizeof(uint32_t));
    int32_t *jmesh = sk_asset_alloc(g->asset, n1 * sizeof(int32_t));
    int32_t *jskin = sk_asset_alloc(g->asset, n1 * sizeof(int32_t));
    int32_t *jpar = tmp_alloc(g, n1, sizeof(int32_t));
    const char **names = tmp_alloc(g, n1, sizeof(char *));
    sk_transform *rest = tmp_alloc(g, n1, sizeof(sk_transform));
    uint32_t *wcounts = tmp_alloc(g, n1, sizeof(uint32_t));
    if (!parents || !order || !scratch || !n2j || !j2n || !jmesh || !jskin || !jpar || !names || !rest || !wcounts)
        return oom(g);
    for (uint32_t i = 0; i < n; i++) parents[i] = g->nodes[i].parent;
    sk_error e = {0};
    sk_result r = n ? sk_skeleton_sort(n, parents, order, scratch, &e) : SK_OK;
    if (r != SK_OK) return fail(g, r, "/nodes: %s", e.message);
    size_t wtotal = 0;
    for (uint32_t k = 0; k < n; k++) {
        j2n[k] = order[k];
        n2j[order[k]] = k;
    }
    for (uint32_t k = 0; k < n; k++) {
        const gl_node *nd = &g->nodes[order[k]];
        jpar[k] = nd->parent < 0 ? -1 : (int32_t)n2j[nd->parent];
        const char *name;
        char path[64];
        gl_path(path, sizeof path, "/nodes/", order[k], NULL);
        TRY(sk_gl_opt_string(g, g->j_nodes[order[k]], "name", path, &name));
        names[k] = name ? name : "";
        rest[k] = nd->rest;
        jmesh[k] = nd->mesh;
        jskin[k] = nd->skin;
        wcounts[k] = nd->mesh >= 0 ? g->asset->meshes[nd->mesh].weight_count : 0;
        wtotal += wcounts[k];
    }
    float *rw = tmp_alloc(g, wtotal ? wtotal : 1, sizeof(float));
    if (!rw) return oom(g);
    size_t at = 0;
    for (uint32_t k = 0; k < n; k++) {
        const gl_node *nd = &g->nodes[order[k]];
        if (!wcounts[k]) continue;
        const sk_mesh *m = &g->asset->meshes[nd->mesh];
        if (nd->weights) {
            uint32_t q = 0;
            for (const sk_jv *c = j_child(nd->weights); c && q < wcounts[k]; c = j_next(c), q++)
                rw[at + q] = (float)c->valuedouble;
        } else if (m->default_weights) {
            memcpy(rw + at, m->default_weights, wcounts[k] * sizeof(float));
        }
        at += wcounts[k];
    }
    sk_skeleton_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = n;
    d.parents = jpar;
    d.names = names;
    d.rest = rest;
    d.weight_counts = wcounts;
    d.rest_weights = rw;
    g->subtree = tmp_alloc(g, n1, sizeof(uint32_t));
    g->root_joint = tmp_alloc(g, n1, sizeof(uint32_t));
    if (!g->subtree || !g->root_joint) return oom(g);
    for (uint32_t k = n; k-- > 0;) {
        g->subtree[k] += 1;
        if (jpar[k] >= 0) g->subtree[jpar[k]] += g->subtree[k];
    }
    for (uint32_t k = 0; k < n; k++) {
        g->root_joint[k] = jpar[k] < 0 ? k : g->root_joint[jpar[k]];
        if (jpar[k] >= 0 && !(k > (uint32_t)jpar[k] && k - (uint32_t)jpar[k] < g->subtree[jpar[k]]))
            return fail(g, SK_ERR_INVALID_DATA, "/nodes: internal error: node order is not depth-first");
    }
    r = sk_skeleton_create(&d, g->alloc, &g->asset->skeleton, &e);
    if (r != SK_OK) return fail(g, r, "/nodes: %s", e.message);
    g->asset->node_count = n;
    g->asset->node_to_joint = n2j;
    g->asset->joint_to_node = j2n;
    g->asset->joint_mesh = jmesh;
    g->asset->joint_skin = jskin;
    return SK_OK;
}

/* ---- skins (§3.7.3) ----------------------------------------------------- */

sk_result sk_gl_load_skins(gl_ctx *g) {
    sk_skin *skins = sk_asset_alloc(g->asset, (size_t)(g->n_skins ? g->n_skins : 1) * sizeof *skins);
    uint32_t *seen = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof(uint32_t));
    if (!skins || !seen) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) seen[i] = UINT32_MAX;
    for (uint32_t s = 0; s < g->n_skins; s++) {
        const sk_jv *o = g->j_skins[s];
        char path[64];
        gl_path(path, sizeof path, "/skins/", s, NULL);
        const char *name;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        if (!(skins[s].name = sk_asset_strdup(g->asset, name))) return oom(g);
        const sk_jv *ja;
        uint32_t jc;
        TRY(sk_gl_array_len(g, o, "joints", path, &ja, &jc));
        if (jc == 0) return fail(g, SK_ERR_INVALID_DATA, "%s/joints: required non-empty array missing", path);
        uint32_t *joints = sk_asset_alloc(g->asset, (size_t)jc * sizeof(uint32_t));
        sk_mat4 *ibm = sk_asset_alloc(g->asset, (size_t)jc * sizeof(sk_mat4));
        if (!joints || !ibm) return oom(g);
        uint32_t k = 0, common_root = 0;
        for (const sk_jv *c = j_child(ja); c; c = j_next(c), k++) {
            if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_nodes)
                return fail(g, SK_ERR_INVALID_DATA, "%s/joints/%u: not a valid node index (%u nodes)", path, k, g->n_nodes);
            uint32_t node = (uint32_t)c->valuedouble;
            if (seen[node] == s)
                return fail(g, SK_ERR_INVALID_DATA, "%s/joints/%u: node %u is listed twice", path, k, node);
            seen[node] = s;
            joints[k] = g->asset->node_to_joint[node];
            /* §3.7.3.1: the joints of a skin share a common root. */
            uint32_t rt = root_of(g, node);
            if (k == 0) common_root = rt;
            else if (rt != common_root)
                return fail(g, SK_ERR_INVALID_DATA, "%s/joints/%u: node %u does not share a common root with node %.0f",
                            path, k, node, j_child(ja)->valuedouble);
        }
        int32_t skel;
        TRY(sk_gl_opt_index(g, o, "skeleton", g->n_nodes, "node", path, &skel));
        skins[s].skeleton_root = -1;
        if (skel >= 0) {
            k = 0;
            for (const sk_jv *c = j_child(ja); c; c = j_next(c), k++)
                if (!is_ancestor_or_self(g, (uint32_t)skel, (uint32_t)c->valuedouble))
                    return fail(g, SK_ERR_INVALID_DATA, "%s/skeleton: node %d is not an ancestor of joint node %.0f",
                                path, skel, c->valuedouble);
            skins[s].skeleton_root = (int32_t)g->asset->node_to_joint[skel];
        }
        const sk_jv *jibm = j_get(o, "inverseBindMatrices");
        if (jibm) {
            char p[96];
            snprintf(p, sizeof p, "%s/inverseBindMatrices", path);
            uint32_t ai;
            TRY(sk_gl_acc_ref(g, jibm, p, "MAT4", CB_F, &ai));
            const gl_acc *a = &g->accs[ai];
            if (a->count < jc)
                return fail(g, SK_ERR_INVALID_DATA, "%s: accessor %u has %u matrices for %u joints", p, ai, a->count, jc);
            if (a->view >= 0 && g->views[a->view].stride)
                return fail(g, SK_ERR_INVALID_DATA, "%s: bufferView %d has a byteStride", p, a->view);
            float *f;
            TRY(sk_gl_acc_read_float(g, ai, &g->tmp, p, &f));
            if (a->view < 0 && a->sparse_count == 0)
                sk_gl_warn(g, "%s: accessor %u has no bufferView: its %u inverse bind matrices are all zero (every "
                           "skinned vertex goes to the origin)", p, ai, jc);
            bool singular_told = a->view < 0 && a->sparse_count == 0;
            for (uint32_t j = 0; j < jc; j++) {
                memcpy(ibm[j].m, f + (size_t)j * 16, sizeof ibm[j].m);
                const float *q = ibm[j].m;
                double det = (double)q[0] * ((double)q[5] * q[10] - (double)q[9] * q[6]) -
                             (double)q[4] * ((double)q[1] * q[10] - (double)q[9] * q[2]) +
                             (double)q[8] * ((double)q[1] * q[6] - (double)q[5] * q[2]);
                if (!singular_told && !(fabs(det) > 1e-12)) {
                    sk_gl_warn(g, "%s: matrix %u is singular (determinant %g): the vertices it binds collapse", p, j, det);
                    singular_told = true; /* once per skin */
                }
                /* Inverse bind matrices are affine: bottom row (0, 0, 0, 1). */
                const float *m = ibm[j].m;
                if ((a->view >= 0 || a->sparse_count) && (fabsf(m[3]) > 1e-5f || fabsf(m[7]) > 1e-5f || fabsf(m[11]) > 1e-5f || fabsf(m[15] - 1.0f) > 1e-5f))
                    return fail(g, SK_ERR_INVALID_DATA, "%s: matrix %u is not affine (bottom row %g %g %g %g)", p, j,
                                (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
            }
        } else {
            for (uint32_t j = 0; j < jc; j++) ibm[j] = sk_mat4_identity();
        }
        skins[s].joints = joints;
        skins[s].joint_count = jc;
        skins[s].inverse_bind = ibm;
    }
    g->asset->skins = skins;
    g->asset->skin_count = g->n_skins;
    /* A skinned node's mesh: joints index the skin's joint list. The largest
     * joint index of each mesh is found once (nodes may share meshes). */
    int32_t *max_joint = tmp_alloc(g, g->n_meshes ? g->n_meshes : 1, sizeof(int32_t));
    if (!max_joint) return oom(g);
    for (uint32_t m = 0; m < g->n_meshes; m++) {
        const sk_mesh *mesh = &g->asset->meshes[m];
        max_joint[m] = -1;
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const sk_primitive *pr = &mesh->primitives[p];
            size_t n = (size_t)pr->vertex_count * pr->influence_count;
            if (pr->influence_count && max_joint[m] < 0) max_joint[m] = 0;
            for (size_t v = 0; v < n; v++)
                if (pr->joints[v] > max_joint[m]) max_joint[m] = pr->joints[v];
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const gl_node *nd = &g->nodes[i];
        if (nd->skin < 0) continue;
        const sk_mesh *m = &g->asset->meshes[nd->mesh];
        uint32_t jc = skins[nd->skin].joint_count;
        bool skinned = max_joint[nd->mesh] >= 0;
        for (uint32_t p = 0; skinned && (uint32_t)max_joint[nd->mesh] >= jc && p < m->primitive_count; p++) {
            const sk_primitive *pr = &m->primitives[p];
            size_t n = (size_t)pr->vertex_count * pr->influence_count;
            for (size_t v = 0; v < n; v++)
                if (pr->joints[v] >= jc)
                    return fail(g, SK_ERR_INVALID_DATA,
                                "/meshes/%d/primitives/%u/attributes/JOINTS_%zu: vertex %zu uses joint %u but skin %d "
                                "(of node %u) has %u joints",
                                nd->mesh, p, (v % pr->influence_count) / 4, v / pr->influence_count,
                                (unsigned)pr->joints[v], nd->skin, i, jc);
        }
        bool missing = false; /* primitives loaded empty: their JOINTS_0 is not in the file either */
        for (uint32_t p = 0; p < m->primitive_count; p++) missing |= m->primitives[p].missing_data != NULL;
        if (!skinned && !missing)
            return fail(g, SK_ERR_INVALID_DATA, "/nodes/%u/skin: mesh %d has no JOINTS_0/WEIGHTS_0", i, nd->mesh);
    }
    return SK_OK;
}

/* ---- scenes (§3.5.1) ----------------------------------------------------- */

sk_result sk_gl_load_scenes(gl_ctx *g) {
    sk_scene *scenes = sk_asset_alloc(g->asset, (size_t)(g->n_scenes ? g->n_scenes : 1) * sizeof *scenes);
    uint32_t *seen = tmp_alloc(g, g->n_nodes ? g->n_nodes : 1, sizeof(uint32_t));
    if (!scenes || !seen) return oom(g);
    for (uint32_t i = 0; i < g->n_nodes; i++) seen[i] = UINT32_MAX;
    for (uint32_t s = 0; s < g->n_scenes; s++) {
        const sk_jv *o = g->j_scenes[s];
        char path[64];
        snprintf(path, sizeof path, "/scenes/%u", s);
        const char *name;
        TRY(sk_gl_opt_string(g, o, "name", path, &name));
        if (!(scenes[s].name = sk_asset_strdup(g->asset, name))) return oom(g);
        const sk_jv *arr;
        uint32_t nc;
        TRY(sk_gl_array_len(g, o, "nodes", path, &arr, &nc));
        uint32_t *roots = sk_asset_alloc(g->asset, (size_t)(nc ? nc : 1) * sizeof(uint32_t));
        if (!roots) return oom(g);
        uint32_t k = 0;
        for (const sk_jv *c = arr ? j_child(arr) : NULL; c; c = j_next(c), k++) {
            if (!j_is_uint(c, 4294967296.0) || c->valuedouble >= g->n_nodes)
                return fail(g, SK_ERR_INVALID_DATA, "%s/nodes/%u: not a valid node index (%u nodes)", path, k, g->n_nodes);
            uint32_t node = (uint32_t)c->valuedouble;
            if (g->nodes[node].parent >= 0)
                return fail(g, SK_ERR_INVALID_DATA, "%s/nodes/%u: node %u is not a root (its parent is node %d)", path,
                            k, node, g->nodes[node].parent);
            if (seen[node] == s)
                return fail(g, SK_ERR_INVALID_DATA, "%s/nodes/%u: node %u is listed twice", path, k, node);
            seen[node] = s;
            roots[k] = g->asset->node_to_joint[node];
        }
        scenes[s].roots = roots;
        scenes[s].root_count = nc;
    }
    g->asset->scenes = scenes;
    g->asset->scene_count = g->n_scenes;
    int32_t def;
    TRY(sk_gl_opt_index(g, g->root, "scene", g->n_scenes, "scene", "", &def));
    g->asset->default_scene = def >= 0 ? def : (g->n_scenes ? 0 : -1);
    return SK_OK;
}

