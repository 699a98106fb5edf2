/* GPU upload of an asset's meshes, per-instance palettes, CPU skinning. */
#include "skr_internal.h"

#include <epoxy/gl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gpu_vertex {
    float pos[3], nrm[3], uv[2];
    uint16_t j[8];
    float w[8];
} gpu_vertex;

static float *smooth_normals(const sk_primitive *p, const uint32_t *idx, uint32_t icount) {
    float *n = calloc((size_t)p->vertex_count * 3, sizeof(float));
    if (!n) return NULL;
    for (uint32_t t = 0; t + 2 < icount; t += 3) {
        uint32_t a = idx[t], b = idx[t + 1], c = idx[t + 2];
        if (a >= p->vertex_count || b >= p->vertex_count || c >= p->vertex_count) continue;
        const float *A = p->positions + a * 3, *B = p->positions + b * 3, *C = p->positions + c * 3;
        float e1[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]}, e2[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
        float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++) n[a * 3 + k] += f[k], n[b * 3 + k] += f[k], n[c * 3 + k] += f[k];
    }
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        float *x = n + v * 3, l = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (l > 0) x[0] /= l, x[1] /= l, x[2] /= l;
        else x[1] = 1;
    }
    return n;
}

void skr_model_destroy(skr_model *m) {
    if (!m) return;
    for (uint32_t i = 0; i < m->item_count; i++) {
        skr_item *it = &m->items[i];
        GLuint vaos[2] = {it->vao, it->cpu_vao}, bufs[2] = {it->vbo, it->ebo};
        glDeleteVertexArrays(2, vaos);
        glDeleteBuffers(2, bufs);
        sk_skinned_mesh_destroy(it->skinned);
    }
    for (uint32_t t = 0; m->textures && t < m->asset->texture_count; t++)
        if (m->textures[t]) glDeleteTextures(1, &m->textures[t]);
    free(m->textures);
    free(m->texture_state);
    free(m->items);
    free(m);
}

sk_result skr_model_create(const sk_asset *a, unsigned flags, skr_model **out, sk_error *err) {
    *out = NULL;
    sk_result vr = sk_asset_validate(a, err); /* indices the draw code trusts */
    if (vr != SK_OK) return vr;
    skr_model *m = calloc(1, sizeof *m);
    if (!m) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    m->asset = a;
    uint32_t cap = 0;
    for (uint32_t j = 0; j < a->node_count; j++)
        if (a->joint_mesh[j] >= 0) cap += a->meshes[a->joint_mesh[j]].primitive_count;
    m->items = calloc(cap ? cap : 1, sizeof *m->items);
    m->textures = calloc(a->texture_count ? a->texture_count : 1, sizeof *m->textures);
    m->texture_state = calloc(a->texture_count ? a->texture_count : 1, 1);
    if (!m->items || !m->textures || !m->texture_state) {
        free(m->items);
        free(m->textures);
        free(m->texture_state);
        free(m);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    sk_result res = SK_OK;
    for (uint32_t j = 0; j < a->node_count && res == SK_OK; j++) {
        if (a->joint_mesh[j] < 0) continue;
        const sk_mesh *mesh = &a->meshes[a->joint_mesh[j]];
        int32_t skin = a->joint_skin[j];
        uint32_t node_offset = m->palette_size;
        uint32_t node_count = skin >= 0 ? a->skins[skin].joint_count : 1;
        bool used = false;
        for (uint32_t pi = 0; pi < mesh->primitive_count; pi++) {
            const sk_primitive *p = &mesh->primitives[pi];
            if (p->mode != 4 || !p->positions || p->vertex_count == 0) continue;
            skr_item *it = &m->items[m->item_count];
            memset(it, 0, sizeof *it);
            it->joint = j;
            it->skin = skin;
            it->prim = p;
            it->palette_offset = node_offset;
            it->palette_count = node_count;
            it->vertex_count = p->vertex_count;
            memcpy(it->base_color, p->base_color, sizeof it->base_color);
            uint32_t icount = p->indices ? p->index_count : p->vertex_count;
            uint32_t *idx = malloc((size_t)(icount ? icount : 1) * sizeof *idx);
            if (!idx) { res = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
            for (uint32_t i = 0; i < icount; i++) {
                uint32_t v = p->indices ? p->indices[i] : i;
                idx[i] = v < p->vertex_count ? v : 0;
            }
            it->index_count = icount - icount % 3;
            sk_primitive copy = *p;
            float *gen_normals = NULL;
            if (!p->normals) copy.normals = gen_normals = smooth_normals(p, idx, it->index_count);
            copy.tangents = NULL;
            if (skin < 0) copy.influence_count = 0;
            res = sk_skinned_mesh_create(&copy, NULL, &it->skinned, err);
            if (res != SK_OK) {
                free(idx);
                free(gen_normals);
                break;
            }
            if (sk_skinned_mesh_palette_size(it->skinned) > node_count) {
                res = sk_error_set(err, SK_ERR_INVALID_DATA, "mesh node %u uses joint %u of a %u-joint skin", j,
                                   sk_skinned_mesh_palette_size(it->skinned) - 1, node_count);
                free(idx);
                free(gen_normals);
                break;
            }
            gpu_vertex *gv = calloc(p->vertex_count, sizeof *gv);
            if (!gv) {
                free(idx);
                free(gen_normals);
                res = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
                break;
            }
            for (uint32_t v = 0; v < p->vertex_count; v++) {
                memcpy(gv[v].pos, p->positions + v * 3, 12);
                if (copy.normals) memcpy(gv[v].nrm, copy.normals + v * 3, 12);
                if (p->texcoords) memcpy(gv[v].uv, p->texcoords + v * 2, 8);
                sk_skinned_mesh_vertex_influences(it->skinned, v, gv[v].j, gv[v].w);
            }
            free(gen_normals);
            glGenVertexArrays(1, &it->vao);
            glGenBuffers(1, &it->vbo);
            glGenBuffers(1, &it->ebo);
            glBindVertexArray(it->vao);
            glBindBuffer(GL_ARRAY_BUFFER, it->vbo);
            glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(p->vertex_count * sizeof *gv), gv, GL_STATIC_DRAW);
            glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, it->ebo);
            glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)(icount ? icount : 1) * 4), idx, GL_STATIC_DRAW);
            size_t st = sizeof *gv;
            glEnableVertexAttribArray(0);
            glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, (GLsizei)st, (void *)offsetof(gpu_vertex, pos));
            glEnableVertexAttribArray(1);
            glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, (GLsizei)st, (void *)offsetof(gpu_vertex, nrm));
            glEnableVertexAttribArray(2);
            glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, (GLsizei)st, (void *)offsetof(gpu_vertex, uv));
            glEnableVertexAttribArray(3);
            glVertexAttribIPointer(3, 4, GL_UNSIGNED_SHORT, (GLsizei)st, (void *)offsetof(gpu_vertex, j));
            glEnableVertexAttribArray(4);
            glVertexAttribPointer(4, 4, GL_FLOAT, GL_FALSE, (GLsizei)st, (void *)offsetof(gpu_vertex, w));
            glEnableVertexAttribArray(5);
            glVertexAttribIPointer(5, 4, GL_UNSIGNED_SHORT, (GLsizei)st, (void *)(offsetof(gpu_vertex, j) + 8));
            glEnableVertexAttribArray(6);
            glVertexAttribPointer(6, 4, GL_FLOAT, GL_FALSE, (GLsizei)st, (void *)(offsetof(gpu_vertex, w) + 16));
            /* CPU path: positions/normals come from the renderer's stream buffer
             * (pointers set per draw), texcoords from the static buffer. */
            glGenVertexArrays(1, &it->cpu_vao);
            glBindVertexArray(it->cpu_vao);
            glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, it->ebo);
            glEnableVertexAttribArray(2);
            glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, (GLsizei)st, (void *)offsetof(gpu_vertex, uv));
            glEnableVertexAttribArray(0);
            glEnableVertexAttribArray(1);
            glBindVertexArray(0);
            free(gv);
            free(idx);
            if (p->texcoords && !(flags & SKR_MODEL_NO_TEXTURES)) it->texture = skr_material_texture(m, p->material);
            if (p->target_count) m->has_morph = true;
            it->cpu_first = m->vertex_count;
            m->vertex_count += p->vertex_count;
            m->item_count++;
            used = true;
        }
        if (used) m->palette_size += node_count;
    }
    if (res != SK_OK) {
        skr_model_destroy(m);
        return res;
    }
    if (m->item_count == 0) {
        skr_model_destroy(m);
        for (uint32_t i = 0; i < a->mesh_count; i++)
            for (uint32_t p = 0; p < a->meshes[i].primitive_count; p++)
                if (a->meshes[i].primitives[p].missing_data)
                    return sk_error_set(err, SK_ERR_UNSUPPORTED,
                                        "nothing to draw: mesh %u primitive %u has no vertex data: %s", i, p,
                                        a->meshes[i].primitives[p].missing_data);
        return sk_error_set(err, SK_ERR_UNSUPPORTED, "nothing to draw: the file has no triangle meshes");
    }
    *out = m;
    return SK_OK;
}

uint32_t skr_model_palette_size(const skr_model *m) { return m->palette_size; }
uint32_t skr_model_vertex_count(const skr_model *m) { return m->vertex_count; }
bool skr_model_has_morph(const skr_model *m) { return m->has_morph; }

void skr_model_palette(const skr_model *m, const sk_mat4 *world, sk_mat4 *out) {
    uint32_t last = UINT32_MAX;
    for (uint32_t i = 0; i < m->item_count; i++) {
        const skr_item *it = &m->items[i];
        if (it->palette_offset == last) continue;
        last = it->palette_offset;
        if (it->skin >= 0)
            (void)sk_skin_palette(&m->asset->skins[it->skin], world, m->asset->skeleton->joint_count,
                                  out + it->palette_offset, m->asset->skins[it->skin].joint_count, NULL);
        else out[it->palette_offset] = world[it->joint];
    }
}

static const float *item_morph(const skr_model *m, const skr_item *it, const float *pose_weights) {
    const sk_skeleton *s = m->asset->skeleton;
    if (!pose_weights || !it->prim->target_count) return NULL;
    if (s->weight_count[it->joint] != it->prim->target_count) return NULL;
    return pose_weights + s->weight_offset[it->joint];
}

sk_result skr_model_skin_cpu(const skr_model *m, const sk_mat4 *palette, const float *pose_weights,
                             sk_skin_method method, sk_simd simd, float *out, sk_error *err) {
    sk_dual_quat stack[256];
    sk_dual_quat *dq = NULL;
    if (method == SK_SKIN_DQS) {
        dq = m->palette_size <= 256 ? stack : malloc(m->palette_size * sizeof *dq);
        if (!dq) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        sk_result r = sk_skin_dual_quats(palette, m->palette_size, dq, err);
        if (r != SK_OK) {
            if (dq != stack) free(dq);
            return r;
        }
    }
    sk_result r = SK_OK;
    for (uint32_t i = 0; i < m->item_count && r == SK_OK; i++) {
        const skr_item *it = &m->items[i];
        sk_skin_job job = {.mesh = it->skinned,
                           .method = method,
                           .simd = simd,
                           .palette = palette + it->palette_offset,
                           .dual_quats = dq ? dq + it->palette_offset : NULL,
                           .palette_count = it->palette_count,
                           .morph_weights = item_morph(m, it, pose_weights),
                           .out_positions = out + (size_t)it->cpu_first * 6,
                           .out_normals = out + (size_t)it->cpu_first * 6 + 3,
                           .position_stride = 6,
                           .normal_stride = 6};
        r = sk_skin_run(&job, err);
    }
    if (dq && dq != stack) free(dq);
    return r;
}

void skr_model_bounds(const skr_model *m, const sk_mat4 *palette, const float *pose_weights, float bmin[3],
                      float bmax[3]) {
    float *tmp = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    if (!tmp) return;
    for (uint32_t i = 0; i < m->item_count; i++) {
        const skr_item *it = &m->items[i];
        sk_skin_job job = {.mesh = it->skinned,
                           .palette = palette + it->palette_offset,
                           .palette_count = it->palette_count,
                           .morph_weights = item_morph(m, it, pose_weights),
                           .out_positions = tmp + (size_t)it->cpu_first * 3};
        if (sk_skin_run(&job, NULL) != SK_OK) continue;
    }
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            float x = tmp[v * 3 + k];
            if (x < bmin[k]) bmin[k] = x;
            if (x > bmax[k]) bmax[k] = x;
        }
    free(tmp);
}
