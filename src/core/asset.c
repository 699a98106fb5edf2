#include "core/internal.h"
#include "skelanim/core/asset.h"

#include <math.h>

sk_result sk_asset_create_empty(const sk_allocator *alloc, sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_asset_create_empty: out is NULL");
    *out = NULL;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_asset *asset = sk_alloc(a, sizeof(sk_asset) + sizeof(sk_asset_internal));
    if (!asset) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    sk_asset_internal *in = (sk_asset_internal *)(asset + 1);
    sk_arena_init(&in->arena, a);
    asset->internal = in;
    asset->default_scene = -1;
    asset->generator = "";
    *out = asset;
    return SK_OK;
}

void *sk_asset_alloc(sk_asset *asset, size_t size) {
    sk_asset_internal *in = asset->internal;
    return sk_arena_alloc(&in->arena, size);
}

char *sk_asset_strdup(sk_asset *asset, const char *s) {
    sk_asset_internal *in = asset->internal;
    return sk_arena_strdup(&in->arena, s);
}

const sk_allocator *sk_asset_allocator(const sk_asset *asset) {
    const sk_asset_internal *in = asset->internal;
    return &in->arena.alloc;
}

void sk_asset_destroy(sk_asset *asset) {
    if (!asset) return;
    sk_asset_internal *in = asset->internal;
    sk_allocator a = in->arena.alloc;
    for (uint32_t i = 0; i < asset->clip_count; i++) sk_clip_destroy(asset->clips[i]);
    sk_skeleton_destroy(asset->skeleton);
    sk_arena_release(&in->arena);
    sk_free(&a, asset, sizeof(sk_asset) + sizeof(sk_asset_internal));
}

int32_t sk_asset_find_clip(const sk_asset *asset, const char *name) {
    if (!asset || !name) return -1;
    for (uint32_t i = 0; i < asset->clip_count; i++)
        if (strcmp(sk_clip_name(asset->clips[i]), name) == 0) return (int32_t)i;
    return -1;
}

bool sk_primitive_vertex_position(const sk_primitive *prim, uint32_t v, const float *weights, const sk_mat4 *palette,
                                  uint32_t palette_count, const sk_mat4 *node_world, sk_vec3 *out) {
    if (!prim || !out || v >= prim->vertex_count) return false;
    const float *p = prim->positions + (size_t)v * 3;
    sk_vec3 pos = sk_vec3_make(p[0], p[1], p[2]);
    /* Morph targets first (glTF 2.0 §3.7.2.2): pos + sum_i w_i * delta_i. */
    if (weights) {
        for (uint32_t i = 0; i < prim->target_count; i++) {
            const float *d = prim->targets[i].positions;
            if (!d || weights[i] == 0.0f) continue;
            d += (size_t)v * 3;
            pos = sk_vec3_add(pos, sk_vec3_scale(sk_vec3_make(d[0], d[1], d[2]), weights[i]));
        }
    }
    if (palette && prim->influence_count) {
        const uint16_t *j = prim->joints + (size_t)v * prim->influence_count;
        const float *w = prim->weights + (size_t)v * prim->influence_count;
        float sum = 0.0f;
        for (uint32_t i = 0; i < prim->influence_count; i++) sum += w[i];
        sk_vec3 acc = {0, 0, 0};
        if (!(sum > 0.0f)) {
            if (j[0] >= palette_count) return false;
            acc = sk_mat4_transform_point(&palette[j[0]], pos);
        } else {
            for (uint32_t i = 0; i < prim->influence_count; i++) {
                if (w[i] == 0.0f) continue;
                if (j[i] >= palette_count) return false;
                acc = sk_vec3_add(acc, sk_vec3_scale(sk_mat4_transform_point(&palette[j[i]], pos), w[i] / sum));
            }
        }
        *out = acc;
        return true;
    }
    *out = node_world ? sk_mat4_transform_point(node_world, pos) : pos;
    return true;
}

/* ---- validation ---- */

static bool finite_all(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!sk_isfinite_f(v[i])) return false;
    return true;
}

#define BAD(...) sk_error_set(err, SK_ERR_INVALID_DATA, "sk_asset_validate: " __VA_ARGS__)

static sk_result validate_primitive(const sk_asset *a, uint32_t mi, uint32_t pi, uint32_t max_skin_joints,
                                    sk_error *err) {
    const sk_mesh *m = &a->meshes[mi];
    const sk_primitive *p = &m->primitives[pi];
    size_t nv = p->vertex_count;
    if (nv && !p->positions) return BAD("meshes/%u/primitives/%u: %zu vertices without positions", mi, pi, nv);
    if (p->positions && !finite_all(p->positions, nv * 3))
        return BAD("meshes/%u/primitives/%u: a position is not finite", mi, pi);
    if (p->influence_count != 0 && p->influence_count != 4 && p->influence_count != 8)
        return BAD("meshes/%u/primitives/%u: %u influences per vertex (0, 4 or 8)", mi, pi, p->influence_count);
    if (p->influence_count && nv) {
        if (!p->joints || !p->weights)
            return BAD("meshes/%u/primitives/%u: influences without joints or weights", mi, pi);
        size_t ni = nv * p->influence_count;
        if (!finite_all(p->weights, ni)) return BAD("meshes/%u/primitives/%u: a skin weight is not finite", mi, pi);
        if (max_skin_joints != UINT32_MAX)
            for (size_t k = 0; k < ni; k++)
                if (p->weights[k] != 0.0f && p->joints[k] >= max_skin_joints)
                    return BAD("meshes/%u/primitives/%u: vertex %zu uses skin joint %u, its skin has %u", mi, pi,
                               k / p->influence_count, p->joints[k], max_skin_joints);
    }
    if (p->index_count && !p->indices)
        return BAD("meshes/%u/primitives/%u: %u indices without an index array", mi, pi, p->index_count);
    for (uint32_t k = 0; p->indices && k < p->index_count; k++)
        if (p->indices[k] >= nv)
            return BAD("meshes/%u/primitives/%u: index %u >= vertex count %zu", mi, pi, p->indices[k], nv);
    if (p->target_count && (!p->targets || p->target_count != m->weight_count))
        return BAD("meshes/%u/primitives/%u: %u morph targets, the mesh has %u weights", mi, pi, p->target_count,
                   m->weight_count);
    /* Without a material table a material index only says "has a colour" (assets built in code). */
    if (p->material < -1 || (a->material_count && p->material >= (int32_t)a->material_count))
        return BAD("meshes/%u/primitives/%u: material %d of %u", mi, pi, p->material, a->material_count);
    return SK_OK;
}

static sk_result validate_looks(const sk_asset *a, sk_error *err) {
    if ((a->material_count && !a->materials) || (a->texture_count && !a->textures) ||
        (a->sampler_count && !a->samplers) || (a->image_count && !a->images))
        return BAD("a material, texture, sampler or image count without its array");
    for (uint32_t i = 0; i < a->image_count; i++)
        if (a->images[i].size && !a->images[i].data) return BAD("images/%u: %zu bytes without data", i, a->images[i].size);
    for (uint32_t i = 0; i < a->texture_count; i++) {
        const sk_texture *t = &a->textures[i];
        if (t->image < -1 || t->image >= (int32_t)a->image_count)
            return BAD("textures/%u: image %d of %u", i, t->image, a->image_count);
        if (t->sampler < -1 || t->sampler >= (int32_t)a->sampler_count)
            return BAD("textures/%u: sampler %d of %u", i, t->sampler, a->sampler_count);
    }
    for (uint32_t i = 0; i < a->material_count; i++) {
        int32_t t = a->materials[i].base_color_texture.texture;
        if (t < -1 || t >= (int32_t)a->texture_count)
            return BAD("materials/%u: base colour texture %d of %u", i, t, a->texture_count);
    }
    return SK_OK;
}

sk_result sk_asset_validate(const sk_asset *a, sk_error *err) {
    if (!a) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_asset_validate: NULL asset");
    const sk_skeleton *s = a->skeleton;
    if (!s) return BAD("the asset has no skeleton");
    uint32_t n = s->joint_count;
    if (a->node_to_joint || a->joint_to_node) {
        if (!a->node_to_joint || !a->joint_to_node || a->node_count != n)
            return BAD("the node mapping does not match the skeleton's %u joints", n);
        for (uint32_t j = 0; j < n; j++)
            if (a->joint_to_node[j] >= n || a->node_to_joint[a->joint_to_node[j]] != j)
                return BAD("node_to_joint and joint_to_node are not inverse permutations (joint %u)", j);
    }
    if ((a->mesh_count && !a->meshes) || (a->skin_count && !a->skins) || (a->clip_count && !a->clips) ||
        (a->scene_count && !a->scenes))
        return BAD("a count without its array");
    for (uint32_t j = 0; j < n; j++) {
        int32_t m = a->joint_mesh ? a->joint_mesh[j] : -1, k = a->joint_skin ? a->joint_skin[j] : -1;
        if (m < -1 || m >= (int32_t)a->mesh_count || k < -1 || k >= (int32_t)a->skin_count)
            return BAD("joint %u names mesh %d / skin %d (the asset has %u / %u)", j, m, k, a->mesh_count,
                       a->skin_count);
    }
    for (uint32_t i = 0; i < a->skin_count; i++) {
        const sk_skin *sk = &a->skins[i];
        if (sk->joint_count && (!sk->joints || !sk->inverse_bind)) return BAD("skins/%u: joints without arrays", i);
        for (uint32_t k = 0; k < sk->joint_count; k++)
            if (sk->joints[k] >= n) return BAD("skins/%u: joint %u is joint %u of %u", i, k, sk->joints[k], n);
        if (sk->inverse_bind && !finite_all(sk->inverse_bind[0].m, (size_t)sk->joint_count * 16))
            return BAD("skins/%u: an inverse bind matrix is not finite", i);
        if (sk->skeleton_root < -1 || sk->skeleton_root >= (int32_t)n)
            return BAD("skins/%u: skeleton root %d out of range", i, sk->skeleton_root);
    }
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const sk_mesh *m = &a->meshes[i];
        if (m->primitive_count && !m->primitives) return BAD("meshes/%u: primitives without an array", i);
        /* the smallest skin this mesh is drawn with bounds its joint indices */
        uint32_t max_joints = UINT32_MAX;
        for (uint32_t j = 0; a->joint_mesh && a->joint_skin && j < n; j++)
            if (a->joint_mesh[j] == (int32_t)i && a->joint_skin[j] >= 0 &&
                a->skins[a->joint_skin[j]].joint_count < max_joints)
                max_joints = a->skins[a->joint_skin[j]].joint_count;
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            sk_result r = validate_primitive(a, i, p, max_joints, err);
            if (r != SK_OK) return r;
        }
    }
    for (uint32_t i = 0; i < a->scene_count; i++) {
        if (a->scenes[i].root_count && !a->scenes[i].roots) return BAD("scenes/%u: roots without an array", i);
        for (uint32_t k = 0; k < a->scenes[i].root_count; k++)
            if (a->scenes[i].roots[k] >= n || s->parents[a->scenes[i].roots[k]] >= 0)
                return BAD("scenes/%u: root %u is not a root joint", i, k);
    }
    if (a->default_scene < -1 || a->default_scene >= (int32_t)a->scene_count)
        return BAD("default scene %d of %u scenes", a->default_scene, a->scene_count);
    sk_result lr = validate_looks(a, err);
    if (lr != SK_OK) return lr;
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const sk_clip *clip = a->clips[c];
        if (!clip) return BAD("clips/%u is NULL", c);
        for (uint32_t t = 0; t < sk_clip_track_count(clip); t++) {
            sk_track_info info;
            sk_clip_track_info(clip, t, &info);
            if (info.joint >= n)
                return BAD("clips/%u ('%s') track %u targets joint %u of %u", c, sk_clip_name(clip), t, info.joint, n);
            if (info.path == SK_PATH_WEIGHTS && info.width != s->weight_count[info.joint])
                return BAD("clips/%u ('%s') track %u: %u morph weights, joint %u has %u", c, sk_clip_name(clip), t,
                           info.width, info.joint, s->weight_count[info.joint]);
        }
    }
    return SK_OK;
}
