/* skelanim — assimp scene to sk_asset: nodes (the skeleton), meshes and skins;
 * clips and looks are import_clips.c's and import_looks.c's. */
#include "import/import_ctx.h"

#include "core/internal.h"

#include <assimp/version.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SK_IMPORT_DEFAULT_MAX_VERTICES (1u << 24)
/* Across the whole scene: vertices converted (a mesh used by many nodes is
 * converted once per node) and bone weights read. */
#define SK_IMPORT_MAX_TOTAL_VERTICES (1u << 26)

void sk_import_warn(sk_import_ctx *c, const char *fmt, ...) {
    if (!c->opts || !c->opts->warning) return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->opts->warning(c->opts->warning_user, msg);
}

void sk_import_warn_once(sk_import_ctx *c, uint32_t kind, const char *message) {
    if (c->warned & kind) return;
    c->warned |= kind;
    sk_import_warn(c, "%s", message);
}

const char *sk_import_str(const struct aiString *s, char *buf) {
    size_t n = s->length < MAXLEN - 1 ? s->length : MAXLEN - 1;
    size_t k = 0;
    while (k < n && s->data[k]) {
        buf[k] = s->data[k];
        k++;
    }
    buf[k] = 0;
    return buf;
}

sk_mat4 sk_import_mat4(const struct aiMatrix4x4 *m) {
    sk_mat4 r;
    const float rows[4][4] = {{m->a1, m->a2, m->a3, m->a4},
                              {m->b1, m->b2, m->b3, m->b4},
                              {m->c1, m->c2, m->c3, m->c4},
                              {m->d1, m->d2, m->d3, m->d4}};
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 4; col++) r.m[col * 4 + row] = rows[row][col];
    return r;
}

bool sk_import_mat4_finite(const sk_mat4 *m) {
    for (int i = 0; i < 16; i++)
        if (!isfinite(m->m[i])) return false;
    return true;
}

static int cmp_name(const void *a, const void *b) {
    const sk_import_name *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : (x->joint > y->joint) - (x->joint < y->joint);
}

int32_t sk_import_find(const sk_import_ctx *c, const char *name) {
    size_t lo = 0, hi = c->node_count;
    while (lo < hi) { /* first entry >= name */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->by_name[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->node_count && !strcmp(c->by_name[lo].name, name) ? (int32_t)c->by_name[lo].joint : -1;
}

#define FAIL(code, ...) (sk_error_set(c->err, code, __VA_ARGS__))
#define OOM() FAIL(SK_ERR_OUT_OF_MEMORY, "%s: out of memory", c->what)

/* ---- Nodes: depth-first, parent before child ------------------------------- */

typedef struct node_item {
    const struct aiNode *node;
    int32_t parent;
} node_item;

static sk_result import_nodes(sk_import_ctx *c) {
    const struct aiNode *root = c->scene->mRootNode;
    if (!root) return FAIL(SK_ERR_INVALID_DATA, "%s: the scene has no root node", c->what);
    uint32_t max = c->opts && c->opts->max_nodes && c->opts->max_nodes < SK_MAX_JOINTS ? c->opts->max_nodes
                                                                                        : SK_MAX_JOINTS;
    size_t cap = 64, top = 0, ncap = 64;
    node_item *stack = sk_alloc(c->alloc, cap * sizeof *stack);
    const struct aiNode **nodes = sk_alloc(c->alloc, ncap * sizeof *nodes);
    int32_t *parents = sk_alloc(c->alloc, ncap * sizeof *parents);
    sk_result r = SK_OK;
    uint32_t n = 0;
    if (!stack || !nodes || !parents) goto oom;
    stack[top++] = (node_item){root, -1};
    while (top) {
        node_item it = stack[--top];
        if (n >= max) {
            r = FAIL(SK_ERR_LIMIT, "%s: more than %u nodes", c->what, max);
            goto done;
        }
        if (n == ncap) {
            size_t nn = ncap * 2;
            const struct aiNode **nv = sk_realloc(c->alloc, (void *)nodes, ncap * sizeof *nodes, nn * sizeof *nodes);
            if (!nv) goto oom;
            nodes = nv;
            int32_t *pv = sk_realloc(c->alloc, parents, ncap * sizeof *parents, nn * sizeof *parents);
            if (!pv) goto oom;
            parents = pv;
            ncap = nn;
        }
        uint32_t self = n++;
        nodes[self] = it.node;
        parents[self] = it.parent;
        const struct aiNode *nd = it.node;
        if (nd->mNumChildren && !nd->mChildren) {
            r = FAIL(SK_ERR_INVALID_DATA, "nodes/%u: %u children without a list", self, nd->mNumChildren);
            goto done;
        }
        if (nd->mNumChildren > max) {
            r = FAIL(SK_ERR_LIMIT, "%s: more than %u nodes", c->what, max);
            goto done;
        }
        if (top + nd->mNumChildren > cap) {
            size_t nc = cap;
            while (nc < top + nd->mNumChildren) nc *= 2;
            node_item *ns = sk_realloc(c->alloc, stack, cap * sizeof *stack, nc * sizeof *stack);
            if (!ns) goto oom;
            stack = ns;
            cap = nc;
        }
        for (uint32_t k = nd->mNumChildren; k-- > 0;) {
            const struct aiNode *ch = nd->mChildren[k];
            /* A tree: every child names this node as its parent (so no node
             * is reached twice along different parents, and no cycle). */
            if (!ch || ch->mParent != nd) {
                r = FAIL(SK_ERR_INVALID_DATA, "%s: nodes/%u: child %u is %s", c->what, self, k,
                         ch ? "not a tree child (its parent is another node)" : "NULL");
                goto done;
            }
            stack[top++] = (node_item){ch, (int32_t)self};
        }
    }
    c->node_count = n;
    c->nodes = nodes;
    c->nodes_cap = ncap;
    nodes = NULL;

    /* The skeleton: names and rest transforms. */
    sk_asset *a = c->asset;
    const char **names = sk_asset_alloc(a, (size_t)n * sizeof *names);
    sk_transform *rest = sk_asset_alloc(a, (size_t)n * sizeof *rest);
    uint32_t *n2j = sk_asset_alloc(a, (size_t)n * sizeof *n2j);
    int32_t *jmesh = sk_asset_alloc(a, (size_t)n * sizeof *jmesh);
    int32_t *jskin = sk_asset_alloc(a, (size_t)n * sizeof *jskin);
    c->by_name = sk_alloc(c->alloc, (size_t)n * sizeof *c->by_name);
    if (!names || !rest || !n2j || !jmesh || !jskin || !c->by_name) goto oom;
    char buf[MAXLEN];
    for (uint32_t j = 0; j < n; j++) {
        names[j] = sk_asset_strdup(a, sk_import_str(&c->nodes[j]->mName, buf));
        if (!names[j]) goto oom;
        c->by_name[j] = (sk_import_name){names[j], j};
        sk_mat4 m = sk_import_mat4(&c->nodes[j]->mTransformation);
        if (!sk_import_mat4_finite(&m)) {
            r = FAIL(SK_ERR_INVALID_DATA, "%s: nodes/%u '%.120s': transformation not finite", c->what, j, names[j]);
            goto done;
        }
        if (!sk_mat4_decompose(&m, &rest[j])) {
            char msg[MAXLEN + 200];
            snprintf(msg, sizeof msg,
                     "%s: node '%.120s' (and maybe others): transformation is not translation, rotation and scale "
                     "(zero scale or not affine): the closest one is used",
                     c->what, names[j]);
            sk_import_warn_once(c, SK_IMPORT_WARN_DECOMPOSE, msg);
        }
        const float *f = &rest[j].t.x;
        for (int k = 0; k < 10; k++)
            if (!isfinite(f[k])) {
                r = FAIL(SK_ERR_INVALID_DATA, "%s: nodes/%u '%.120s': transformation not decomposable", c->what, j,
                         names[j]);
                goto done;
            }
        n2j[j] = j;
        jmesh[j] = jskin[j] = -1;
    }
    qsort(c->by_name, n, sizeof *c->by_name, cmp_name);
    sk_skeleton_desc sd = {.joint_count = n, .parents = parents, .names = names, .rest = rest};
    if ((r = sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, c->err)) != SK_OK) goto done;
    a->node_count = n;
    a->node_to_joint = n2j;
    a->joint_to_node = n2j;
    a->joint_mesh = jmesh;
    a->joint_skin = jskin;
    goto done;
oom:
    r = OOM();
done:
    sk_free(c->alloc, stack, cap * sizeof *stack);
    sk_free(c->alloc, (void *)nodes, ncap * sizeof *nodes);
    sk_free(c->alloc, parents, ncap * sizeof *parents);
    return r;
}

/* ---- Skins: one per node with bones, shared by the node's meshes ------------ */

/* The node's skin under construction: entries (joint, offset matrix); an
 * entry is reused by every bone naming the same joint with the same matrix. */
typedef struct skin_build {
    uint32_t count, cap;
    uint32_t *joints;
    sk_mat4 *ibm;
    int32_t *next;       /* next entry of the same joint, -1 */
    int32_t *first;      /* per joint: first entry, -1 (node_count) */
} skin_build;

static int32_t skin_entry(sk_import_ctx *c, skin_build *s, uint32_t joint, const sk_mat4 *ibm) {
    for (int32_t e = s->first[joint]; e >= 0; e = s->next[e])
        if (!memcmp(&s->ibm[e], ibm, sizeof *ibm)) return e;
    if (s->count >= 65536u) return -2;
    if (s->count == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 32;
        uint32_t *j = sk_realloc(c->alloc, s->joints, s->cap * sizeof *j, nc * sizeof *j);
        if (j) s->joints = j;
        sk_mat4 *m = sk_realloc(c->alloc, s->ibm, s->cap * sizeof *m, nc * sizeof *m);
        if (m) s->ibm = m;
        int32_t *nx = sk_realloc(c->alloc, s->next, s->cap * sizeof *nx, nc * sizeof *nx);
        if (nx) s->next = nx;
        if (!j || !m || !nx) return -1;
        s->cap = nc;
    }
    int32_t e = (int32_t)s->count++;
    s->joints[e] = joint;
    s->ibm[e] = *ibm;
    s->next[e] = s->first[joint];
    s->first[joint] = e;
    return e;
}

/* Per-vertex influences gathered from the bones, before the 8-largest cut. */
typedef struct influence {
    uint32_t entry;
    float weight;
} influence;

typedef struct mesh_scratch {
    uint32_t *offset;    /* vertex_count + 1 */
    uint32_t *fill;      /* vertex_count */
    influence *inf;      /* total weights */
    int32_t *bone_entry; /* per bone of the mesh */
} mesh_scratch;

static sk_result import_weights(sk_import_ctx *c, uint32_t mi, const struct aiMesh *m, skin_build *skin,
                                sk_primitive *p, const char *mname) {
    uint32_t nv = m->mNumVertices;
    sk_result r = SK_OK;
    mesh_scratch s = {0};
    size_t total = 0, inf_count = 0;
    char buf[MAXLEN];
    if (!m->mBones) return FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': %u bones without a list", c->what, mi,
                                mname, m->mNumBones);
    s.offset = sk_alloc(c->alloc, ((size_t)nv + 1) * sizeof *s.offset);
    s.fill = sk_alloc(c->alloc, ((size_t)nv + 1) * sizeof *s.fill);
    s.bone_entry = sk_alloc(c->alloc, (size_t)m->mNumBones * sizeof *s.bone_entry);
    if (!s.offset || !s.fill || !s.bone_entry) goto oom;
    for (uint32_t b = 0; b < m->mNumBones; b++) {
        const struct aiBone *bone = m->mBones[b];
        if (!bone || (bone->mNumWeights && !bone->mWeights)) {
            r = FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': bones/%u has no weights list", c->what, mi, mname, b);
            goto done;
        }
        const char *bn = sk_import_str(&bone->mName, buf);
        int32_t joint = sk_import_find(c, bn);
        if (joint < 0) {
            r = FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': bone '%.120s' names no node", c->what, mi, mname, bn);
            goto done;
        }
        sk_mat4 ibm = sk_import_mat4(&bone->mOffsetMatrix);
        if (!sk_import_mat4_finite(&ibm)) {
            r = FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': bone '%.120s': offset matrix not finite", c->what, mi,
                     mname, bn);
            goto done;
        }
        int32_t e = skin_entry(c, skin, (uint32_t)joint, &ibm);
        if (e == -1) goto oom;
        if (e == -2) {
            r = FAIL(SK_ERR_LIMIT, "%s: meshes/%u '%.120s': more than 65536 bones in one skin", c->what, mi, mname);
            goto done;
        }
        s.bone_entry[b] = e;
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            const struct aiVertexWeight *vw = &bone->mWeights[w];
            if (vw->mVertexId >= nv || !isfinite(vw->mWeight) || vw->mWeight < 0.0f) {
                r = FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': bone '%.120s': weight %u (vertex %u, %g) %s", c->what,
                         mi, mname, bn, w, vw->mVertexId, (double)vw->mWeight,
                         vw->mVertexId >= nv ? "names no vertex" : "is not a finite weight >= 0");
                goto done;
            }
            if (vw->mWeight > 0.0f) s.offset[vw->mVertexId + 1]++;
        }
        total += bone->mNumWeights;
        if (total > SK_IMPORT_MAX_TOTAL_VERTICES * (size_t)4) {
            r = FAIL(SK_ERR_LIMIT, "%s: meshes/%u '%.120s': more than %u bone weights", c->what, mi, mname,
                     SK_IMPORT_MAX_TOTAL_VERTICES * 4u);
            goto done;
        }
    }
    for (uint32_t v = 0; v < nv; v++) s.offset[v + 1] += s.offset[v];
    inf_count = (size_t)s.offset[nv] + 1;
    s.inf = sk_alloc(c->alloc, inf_count * sizeof *s.inf);
    if (!s.inf) goto oom;
    for (uint32_t b = 0; b < m->mNumBones; b++) {
        const struct aiBone *bone = m->mBones[b];
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            const struct aiVertexWeight *vw = &bone->mWeights[w];
            if (vw->mWeight > 0.0f)
                s.inf[s.offset[vw->mVertexId] + s.fill[vw->mVertexId]++] =
                    (influence){(uint32_t)s.bone_entry[b], vw->mWeight};
        }
    }
    uint32_t most = 0, over = 0;
    for (uint32_t v = 0; v < nv; v++) {
        uint32_t k = s.offset[v + 1] - s.offset[v];
        if (k > most) most = k;
        if (k > SK_IMPORT_MAX_INFLUENCES) over++;
    }
    uint32_t ic = most == 0 ? 0 : most <= 4 ? 4 : 8;
    if (ic == 0) {
        p->influence_count = 0;
        goto done;
    }
    uint16_t *joints = sk_asset_alloc(c->asset, (size_t)nv * ic * sizeof *joints);
    float *weights = sk_asset_alloc(c->asset, (size_t)nv * ic * sizeof *weights);
    if (!joints || !weights) goto oom;
    for (uint32_t v = 0; v < nv; v++) {
        influence *in = s.inf + s.offset[v];
        uint32_t k = s.offset[v + 1] - s.offset[v];
        if (k > ic) {
            /* Keep the ic largest (stable: earlier bones first among equals). */
            for (uint32_t i = 1; i < k; i++) {
                influence x = in[i];
                uint32_t j = i;
                while (j > 0 && in[j - 1].weight < x.weight) {
                    in[j] = in[j - 1];
                    j--;
                }
                in[j] = x;
            }
            double sum = 0.0;
            for (uint32_t i = 0; i < ic; i++) sum += in[i].weight;
            for (uint32_t i = 0; i < ic; i++) in[i].weight = (float)(in[i].weight / sum);
            k = ic;
        }
        for (uint32_t i = 0; i < k; i++) {
            joints[(size_t)v * ic + i] = (uint16_t)in[i].entry;
            weights[(size_t)v * ic + i] = in[i].weight;
        }
    }
    if (over)
        sk_import_warn(c,
                       "%s: meshes/%u '%.120s': %u vertices have more than %u influences (up to %u): the %u largest kept "
                       "and renormalised to sum 1",
                       c->what, mi, mname, over, SK_IMPORT_MAX_INFLUENCES, most, SK_IMPORT_MAX_INFLUENCES);
    p->influence_count = ic;
    p->joints = joints;
    p->weights = weights;
    goto done;
oom:
    r = OOM();
done:
    sk_free(c->alloc, s.offset, ((size_t)nv + 1) * sizeof *s.offset);
    sk_free(c->alloc, s.fill, ((size_t)nv + 1) * sizeof *s.fill);
    sk_free(c->alloc, s.bone_entry, (size_t)m->mNumBones * sizeof *s.bone_entry);
    sk_free(c->alloc, s.inf, inf_count * sizeof *s.inf);
    return r;
}

/* ---- Meshes ------------------------------------------------------------------ */

static sk_result import_primitive(sk_import_ctx *c, uint32_t mi, const struct aiMesh *m, skin_build *skin,
                                  sk_primitive *p, size_t *vertex_budget) {
    char buf[MAXLEN];
    const char *mname = sk_import_str(&m->mName, buf);
    uint32_t nv = m->mNumVertices;
    uint32_t maxv = c->opts && c->opts->max_vertices ? c->opts->max_vertices : SK_IMPORT_DEFAULT_MAX_VERTICES;
    if (nv > maxv || nv > *vertex_budget)
        return FAIL(SK_ERR_LIMIT, "%s: meshes/%u '%.120s': %u vertices (limit %u per mesh, %u in all)", c->what, mi,
                    mname, nv, maxv, SK_IMPORT_MAX_TOTAL_VERTICES);
    *vertex_budget -= nv;
    if (nv && !m->mVertices)
        return FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': %u vertices without positions", c->what, mi, mname, nv);
    if (m->mNumFaces && !m->mFaces)
        return FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': %u faces without a list", c->what, mi, mname,
                    m->mNumFaces);
    if (m->mNumAnimMeshes) {
        char msg[MAXLEN + 160];
        snprintf(msg, sizeof msg, "%s: mesh '%.120s' (and maybe others): morph targets are not converted", c->what, mname);
        sk_import_warn_once(c, SK_IMPORT_WARN_MORPH, msg);
    }
    if (m->mColors[0]) {
        char msg[MAXLEN + 160];
        snprintf(msg, sizeof msg, "%s: mesh '%.120s' (and maybe others): vertex colours are not converted", c->what, mname);
        sk_import_warn_once(c, SK_IMPORT_WARN_COLOURS, msg);
    }
    if (m->mTextureCoords[1]) {
        char msg[MAXLEN + 160];
        snprintf(msg, sizeof msg, "%s: mesh '%.120s' (and maybe others): UV sets past the first are not converted",
                 c->what, mname);
        sk_import_warn_once(c, SK_IMPORT_WARN_UVSETS, msg);
    }
    /* Topology: every face the same number of corners (1, 2 or 3). */
    uint32_t corners = 0;
    for (uint32_t f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *fc = &m->mFaces[f];
        if (f == 0) corners = fc->mNumIndices;
        if (fc->mNumIndices != corners || corners < 1 || corners > 3 || !fc->mIndices)
            return FAIL(SK_ERR_INVALID_DATA,
                        "%s: meshes/%u '%.120s': faces/%u has %u corners (a mesh holds points, lines or triangles, "
                        "one kind)",
                        c->what, mi, mname, f, fc->mNumIndices);
    }
    size_t ni = (size_t)m->mNumFaces * corners;
    if (ni > (size_t)maxv * 16u)
        return FAIL(SK_ERR_LIMIT, "%s: meshes/%u '%.120s': %zu indices", c->what, mi, mname, ni);
    p->mode = corners == 1 ? 0u : corners == 2 ? 1u : 4u;
    p->vertex_count = nv;
    p->material = -1;
    p->base_color[0] = p->base_color[1] = p->base_color[2] = p->base_color[3] = 1.0f;
    if (m->mMaterialIndex < c->scene->mNumMaterials) p->material = (int32_t)m->mMaterialIndex;
    else if (c->scene->mNumMaterials)
        return FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': material %u of %u", c->what, mi, mname,
                    m->mMaterialIndex, c->scene->mNumMaterials);
    float *pos = sk_asset_alloc(c->asset, (size_t)nv * 3 * sizeof *pos + 1);
    uint32_t *idx = ni ? sk_asset_alloc(c->asset, ni * sizeof *idx) : NULL;
    if (!pos || (ni && !idx)) return OOM();
    for (uint32_t v = 0; v < nv; v++) {
        const struct aiVector3D *q = &m->mVertices[v];
        if (!isfinite(q->x) || !isfinite(q->y) || !isfinite(q->z))
            return FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': vertex %u position not finite", c->what, mi, mname,
                        v);
        pos[v * 3] = q->x, pos[v * 3 + 1] = q->y, pos[v * 3 + 2] = q->z;
    }
    p->positions = pos;
    uint32_t bad = 0;
    if (m->mNormals && nv) {
        float *nrm = sk_asset_alloc(c->asset, (size_t)nv * 3 * sizeof *nrm);
        if (!nrm) return OOM();
        for (uint32_t v = 0; v < nv; v++) {
            const struct aiVector3D *q = &m->mNormals[v];
            if (isfinite(q->x) && isfinite(q->y) && isfinite(q->z))
                nrm[v * 3] = q->x, nrm[v * 3 + 1] = q->y, nrm[v * 3 + 2] = q->z;
            else bad++;
        }
        p->normals = nrm;
    }
    if (m->mTextureCoords[0] && nv) {
        float *uv = sk_asset_alloc(c->asset, (size_t)nv * 2 * sizeof *uv);
        if (!uv) return OOM();
        for (uint32_t v = 0; v < nv; v++) {
            const struct aiVector3D *q = &m->mTextureCoords[0][v];
            if (isfinite(q->x) && isfinite(q->y)) uv[v * 2] = q->x, uv[v * 2 + 1] = q->y;
            else bad++;
        }
        p->texcoords = uv;
    }
    if (bad)
        sk_import_warn(c, "%s: meshes/%u '%.120s': %u non-finite normals or texture coordinates set to 0", c->what, mi,
                       mname, bad);
    for (uint32_t f = 0, k = 0; f < m->mNumFaces; f++)
        for (uint32_t i = 0; i < corners; i++, k++) {
            uint32_t x = m->mFaces[f].mIndices[i];
            if (x >= nv)
                return FAIL(SK_ERR_INVALID_DATA, "%s: meshes/%u '%.120s': faces/%u: index %u >= vertex count %u", c->what,
                            mi, mname, f, x, nv);
            idx[k] = x;
        }
    p->index_count = (uint32_t)ni;
    p->indices = idx;
    return m->mNumBones ? import_weights(c, mi, m, skin, p, mname) : SK_OK;
}

static sk_result import_meshes(sk_import_ctx *c) {
    sk_asset *a = c->asset;
    const struct aiScene *sc = c->scene;
    uint32_t n = c->node_count, mesh_count = 0, skin_count = 0;
    if (sc->mNumMeshes && !sc->mMeshes)
        return FAIL(SK_ERR_INVALID_DATA, "%s: %u meshes without a list", c->what, sc->mNumMeshes);
    for (uint32_t j = 0; j < n; j++)
        if (c->nodes[j]->mNumMeshes) mesh_count++;
    if (!mesh_count) return SK_OK;
    sk_mesh *meshes = sk_asset_alloc(a, (size_t)mesh_count * sizeof *meshes);
    sk_skin *skins = sk_asset_alloc(a, (size_t)mesh_count * sizeof *skins);
    skin_build sb = {0};
    sb.first = sk_alloc(c->alloc, (size_t)n * sizeof *sb.first);
    sk_result r = SK_OK;
    if (!meshes || !skins || !sb.first) {
        r = OOM();
        goto done;
    }
    for (uint32_t j = 0; j < n; j++) sb.first[j] = -1;
    int32_t *jmesh = (int32_t *)a->joint_mesh, *jskin = (int32_t *)a->joint_skin;
    size_t budget = SK_IMPORT_MAX_TOTAL_VERTICES;
    uint32_t mc = 0;
    char buf[MAXLEN];
    for (uint32_t j = 0; j < n; j++) {
        const struct aiNode *nd = c->nodes[j];
        if (!nd->mNumMeshes) continue;
        if (!nd->mMeshes) {
            r = FAIL(SK_ERR_INVALID_DATA, "%s: nodes/%u: %u meshes without a list", c->what, j, nd->mNumMeshes);
            goto done;
        }
        if (nd->mNumMeshes > 65536u) {
            r = FAIL(SK_ERR_LIMIT, "%s: nodes/%u: %u meshes", c->what, j, nd->mNumMeshes);
            goto done;
        }
        sk_primitive *prims = sk_asset_alloc(a, (size_t)nd->mNumMeshes * sizeof *prims);
        if (!prims) {
            r = OOM();
            goto done;
        }
        sb.count = 0;
        for (uint32_t k = 0; k < nd->mNumMeshes; k++) {
            uint32_t mi = nd->mMeshes[k];
            if (mi >= sc->mNumMeshes || !sc->mMeshes[mi]) {
                r = FAIL(SK_ERR_INVALID_DATA, "%s: nodes/%u: mesh %u of %u", c->what, j, mi, sc->mNumMeshes);
                goto done;
            }
            if ((r = import_primitive(c, mi, sc->mMeshes[mi], &sb, &prims[k], &budget)) != SK_OK) goto done;
        }
        sk_mesh *me = &meshes[mc];
        me->name = sk_asset_strdup(a, nd->mNumMeshes == 1 ? sk_import_str(&sc->mMeshes[nd->mMeshes[0]]->mName, buf)
                                                          : sk_import_str(&nd->mName, buf));
        me->primitive_count = nd->mNumMeshes;
        me->primitives = prims;
        jmesh[j] = (int32_t)mc;
        if (sb.count) {
            sk_skin *sk = &skins[skin_count];
            uint32_t *sj = sk_asset_alloc(a, (size_t)sb.count * sizeof *sj);
            sk_mat4 *ibm = sk_asset_alloc(a, (size_t)sb.count * sizeof *ibm);
            if (!sj || !ibm || !me->name) {
                r = OOM();
                goto done;
            }
            memcpy(sj, sb.joints, (size_t)sb.count * sizeof *sj);
            memcpy(ibm, sb.ibm, (size_t)sb.count * sizeof *ibm);
            sk->name = me->name;
            sk->joint_count = sb.count;
            sk->joints = sj;
            sk->inverse_bind = ibm;
            sk->skeleton_root = -1;
            jskin[j] = (int32_t)skin_count++;
            for (uint32_t e = 0; e < sb.count; e++) sb.first[sb.joints[e]] = -1;
        }
        mc++;
    }
    a->mesh_count = mc;
    a->meshes = meshes;
    a->skin_count = skin_count;
    a->skins = skins;
done:
    sk_free(c->alloc, sb.first, (size_t)n * sizeof *sb.first);
    sk_free(c->alloc, sb.joints, sb.cap * sizeof *sb.joints);
    sk_free(c->alloc, sb.ibm, sb.cap * sizeof *sb.ibm);
    sk_free(c->alloc, sb.next, sb.cap * sizeof *sb.next);
    return r;
}

/* ---- The entry point ---------------------------------------------------------- */

sk_result sk_import_convert_scene(const struct aiScene *scene, const char *what, const sk_import_options *opts,
                                  sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_import: NULL out");
    *out = NULL;
    if (!what) what = "scene";
    if (!scene) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: NULL scene", what);
    sk_import_ctx ctx = {.scene = scene, .what = what, .opts = opts, .alloc = opts ? opts->allocator : NULL, .err = err};
    sk_import_ctx *c = &ctx;
    sk_result r = sk_asset_create_empty(c->alloc, &c->asset, err);
    if (r != SK_OK) return r;
    if ((r = import_nodes(c)) != SK_OK) goto done;
    if ((r = sk_import_looks(c)) != SK_OK) goto done;
    if ((r = import_meshes(c)) != SK_OK) goto done;
    if ((r = sk_import_clips(c)) != SK_OK) goto done;
    if (scene->mNumCameras || scene->mNumLights) {
        char msg[300];
        snprintf(msg, sizeof msg, "%s: %u cameras and %u lights are not converted (their nodes are joints)", what,
                 scene->mNumCameras, scene->mNumLights);
        sk_import_warn_once(c, SK_IMPORT_WARN_CAMERAS, msg);
    }
    sk_asset *a = c->asset;
    sk_scene *sc = sk_asset_alloc(a, sizeof *sc);
    uint32_t *roots = sk_asset_alloc(a, sizeof *roots);
    if (!sc || !roots) {
        r = OOM();
        goto done;
    }
    roots[0] = 0;
    sc->name = "";
    sc->root_count = 1;
    sc->roots = roots;
    a->scene_count = 1;
    a->scenes = sc;
    a->default_scene = 0;
    char gen[64];
    snprintf(gen, sizeof gen, "assimp %u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    a->generator = sk_asset_strdup(a, gen);
    if (!a->generator) {
        r = OOM();
        goto done;
    }
    /* Materials' colours onto the primitives (sk_primitive.base_color). */
    for (uint32_t m = 0; m < a->mesh_count; m++)
        for (uint32_t k = 0; k < a->meshes[m].primitive_count; k++) {
            sk_primitive *p = (sk_primitive *)&a->meshes[m].primitives[k];
            if (p->material >= 0 && (uint32_t)p->material < a->material_count)
                memcpy(p->base_color, a->materials[p->material].base_color, sizeof p->base_color);
        }
    if ((r = sk_asset_validate(a, err)) != SK_OK) {
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err->message);
        r = sk_error_set(err, r, "%s: %s", what, msg);
        goto done;
    }
done:
    sk_free(c->alloc, (void *)c->nodes, c->nodes_cap * sizeof *c->nodes);
    sk_free(c->alloc, c->by_name, (size_t)c->node_count * sizeof *c->by_name);
    if (r != SK_OK) sk_asset_destroy(c->asset);
    else *out = c->asset;
    return r;
}
