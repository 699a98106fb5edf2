/* Harness: the importer's conversion of what assimp returns
 * (sk_import_convert_scene, src/import/import_internal.h) on scenes built
 * from the input — not assimp's parsers, which are assimp's to fuzz. Up to
 * 24 nodes whose names collide, are empty or overlong (aiString lengths past
 * the buffer), any transforms (NaN, zero scale, shear); node graphs that are
 * sometimes not trees (a wrong parent pointer, a node under two parents, a
 * cycle); up to 4 meshes with any vertex values, faces of 0 to 4 corners and
 * indices past the vertices, bones naming no node, weights on vertices that
 * do not exist, NaN or negative weights, more than 8 influences; material
 * indices out of range; animations with any tick rate, channels naming no
 * node or the same node twice, key times in any order, zero quaternions.
 * Promises: the conversion never reads outside the scene (ASan), fails with
 * a message and no asset, or gives an asset that sk_asset_validate accepts,
 * every vertex with at most 8 influences whose weights (when renormalised)
 * are finite, and clips that sample to finite poses (keys within 1e30). */
#include "fuzz_common.h"

#include "import/import_internal.h"

#include <assimp/scene.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 24

/* Everything the scene holds, freed in one go. */
typedef struct pool {
    void *p[4096];
    int n;
} pool;

static void *pz(pool *P, size_t size) {
    if (P->n == (int)(sizeof P->p / sizeof P->p[0])) return NULL;
    void *m = calloc(1, size ? size : 1);
    if (m) P->p[P->n++] = m;
    return m;
}

static void name(fz_bytes *b, struct aiString *s) {
    static const char *const names[] = {"root", "hip", "spine", "arm", "hand", "", "hip", "mesh"};
    uint8_t k = fz_u8(b);
    if (k == 0xff) { /* overlong: no NUL, length past the buffer */
        memset(s->data, 'x', MAXLEN);
        s->length = 0xffffffffu;
        return;
    }
    const char *n = names[k % 8];
    s->length = (uint32_t)strlen(n);
    memcpy(s->data, n, s->length + 1);
    if (k & 0x80) { /* a numbered name: fewer collisions */
        s->data[s->length++] = (char)('0' + k % 10);
        s->data[s->length] = 0;
    }
}

/* A key value; huge is set for one past 1e30 (interpolating such keys may
 * overflow, which is the float arithmetic's, not the conversion's). */
static float key(fz_bytes *b, float lo, float hi, bool *huge) {
    float v = fz_float(b, lo, hi);
    if (isfinite(v) && fabsf(v) > 1e30f) *huge = true;
    return v;
}

static void matrix(fz_bytes *b, struct aiMatrix4x4 *m) {
    float *f = &m->a1;
    uint8_t kind = fz_u8(b);
    memset(m, 0, sizeof *m);
    m->a1 = m->b2 = m->c3 = m->d4 = 1.0f;
    if (kind % 4 == 0) return;
    if (kind % 4 == 1) { /* translation */
        m->a4 = fz_float(b, -10, 10), m->b4 = fz_float(b, -10, 10), m->c4 = fz_float(b, -10, 10);
        return;
    }
    for (int i = 0; i < (kind % 4 == 2 ? 12 : 16); i++) f[i] = fz_float(b, -2, 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_bytes b = {data, size};
    pool *P = calloc(1, sizeof *P);
    if (!P) return 0;
    struct aiScene *sc = pz(P, sizeof *sc);
    uint32_t nn = 1 + fz_u8(&b) % MAXN;
    struct aiNode *nodes[MAXN];
    int32_t parent[MAXN];
    for (uint32_t i = 0; i < nn; i++) {
        nodes[i] = pz(P, sizeof *nodes[i]);
        name(&b, &nodes[i]->mName);
        matrix(&b, &nodes[i]->mTransformation);
        parent[i] = i ? (int32_t)(fz_u8(&b) % i) : -1;
    }
    /* Children lists from the parents; then maybe break the tree. */
    uint32_t count[MAXN] = {0};
    for (uint32_t i = 1; i < nn; i++) count[parent[i]]++;
    for (uint32_t i = 0; i < nn; i++) {
        nodes[i]->mChildren = pz(P, (count[i] + 1) * sizeof *nodes[i]->mChildren);
        nodes[i]->mParent = parent[i] >= 0 ? nodes[parent[i]] : NULL;
    }
    for (uint32_t i = 1; i < nn; i++) {
        struct aiNode *p = nodes[parent[i]];
        p->mChildren[p->mNumChildren++] = nodes[i];
    }
    uint8_t hostile = fz_u8(&b);
    if (nn > 2 && hostile % 8 == 1) nodes[nn - 1]->mParent = nodes[0];        /* a wrong parent pointer */
    if (nn > 2 && hostile % 8 == 2) nodes[nn - 1]->mChildren[nodes[nn - 1]->mNumChildren++] = nodes[0]; /* cycle */
    if (nn > 2 && hostile % 8 == 3) nodes[0]->mChildren[nodes[0]->mNumChildren++] = nodes[nn - 1]; /* two parents */
    sc->mRootNode = nodes[0];

    /* Materials: no properties (the colours are assimp's lookups). */
    sc->mNumMaterials = fz_u8(&b) % 3;
    sc->mMaterials = pz(P, (sc->mNumMaterials + 1) * sizeof *sc->mMaterials);
    for (uint32_t i = 0; i < sc->mNumMaterials; i++) sc->mMaterials[i] = pz(P, sizeof(struct aiMaterial));

    sc->mNumMeshes = fz_u8(&b) % 5;
    sc->mMeshes = pz(P, (sc->mNumMeshes + 1) * sizeof *sc->mMeshes);
    for (uint32_t m = 0; m < sc->mNumMeshes; m++) {
        struct aiMesh *me = pz(P, sizeof *me);
        sc->mMeshes[m] = me;
        name(&b, &me->mName);
        uint32_t nv = fz_u8(&b) % 41;
        me->mNumVertices = nv;
        me->mVertices = pz(P, (nv + 1) * sizeof *me->mVertices);
        uint8_t attrs = fz_u8(&b);
        if (attrs & 1) me->mNormals = pz(P, (nv + 1) * sizeof *me->mNormals);
        if (attrs & 2) me->mTextureCoords[0] = pz(P, (nv + 1) * sizeof *me->mTextureCoords[0]);
        for (uint32_t v = 0; v < nv; v++) {
            me->mVertices[v].x = fz_float(&b, -5, 5);
            me->mVertices[v].y = fz_float(&b, -5, 5);
            me->mVertices[v].z = fz_float(&b, -5, 5);
            if (me->mNormals) me->mNormals[v].y = fz_float(&b, -1, 1);
            if (me->mTextureCoords[0]) me->mTextureCoords[0][v].x = fz_float(&b, 0, 1);
        }
        uint32_t nf = fz_u8(&b) % 16;
        uint32_t corners = 3;
        uint8_t fk = fz_u8(&b);
        if (fk % 8 == 1) corners = 1 + fk / 8 % 2;
        me->mNumFaces = nf;
        me->mFaces = pz(P, (nf + 1) * sizeof *me->mFaces);
        for (uint32_t f = 0; f < nf; f++) {
            uint32_t c = fk % 8 == 2 && f == nf - 1 ? fz_u8(&b) % 5 : corners;
            me->mFaces[f].mNumIndices = c;
            me->mFaces[f].mIndices = pz(P, (c + 1) * sizeof(unsigned int));
            for (uint32_t k = 0; k < c; k++) me->mFaces[f].mIndices[k] = nv ? fz_u8(&b) % (nv + (fk % 8 == 3)) : fz_u8(&b);
        }
        me->mMaterialIndex = fz_u8(&b) % (sc->mNumMaterials + 1 + (fk % 8 == 4));
        me->mNumBones = fz_u8(&b) % 11;
        me->mBones = pz(P, (me->mNumBones + 1) * sizeof *me->mBones);
        for (uint32_t k = 0; k < me->mNumBones; k++) {
            struct aiBone *bo = pz(P, sizeof *bo);
            me->mBones[k] = bo;
            name(&b, &bo->mName);
            matrix(&b, &bo->mOffsetMatrix);
            bo->mNumWeights = fz_u8(&b) % 48;
            bo->mWeights = pz(P, (bo->mNumWeights + 1) * sizeof *bo->mWeights);
            for (uint32_t w = 0; w < bo->mNumWeights; w++) {
                bo->mWeights[w].mVertexId = nv ? fz_u8(&b) % (nv + (fk % 8 == 5)) : fz_u8(&b);
                bo->mWeights[w].mWeight = fz_float(&b, fk % 8 == 6 ? -0.1f : 0.0f, 1.0f);
            }
        }
    }
    /* Meshes on nodes (indices sometimes past the list). */
    for (uint32_t i = 0; i < nn; i++) {
        uint8_t k = fz_u8(&b);
        if (k % 4) continue;
        nodes[i]->mNumMeshes = 1 + k / 4 % 2;
        nodes[i]->mMeshes = pz(P, 2 * sizeof(unsigned int));
        for (uint32_t j = 0; j < nodes[i]->mNumMeshes; j++)
            nodes[i]->mMeshes[j] = fz_u8(&b) % (sc->mNumMeshes + 1);
    }

    bool huge = false;
    sc->mNumAnimations = fz_u8(&b) % 3;
    sc->mAnimations = pz(P, (sc->mNumAnimations + 1) * sizeof *sc->mAnimations);
    for (uint32_t a = 0; a < sc->mNumAnimations; a++) {
        struct aiAnimation *an = pz(P, sizeof *an);
        sc->mAnimations[a] = an;
        name(&b, &an->mName);
        an->mTicksPerSecond = fz_float(&b, -1.0f, 100.0f);
        an->mDuration = fz_float(&b, 0.0f, 200.0f);
        an->mNumChannels = fz_u8(&b) % 5;
        an->mChannels = pz(P, (an->mNumChannels + 1) * sizeof *an->mChannels);
        for (uint32_t c = 0; c < an->mNumChannels; c++) {
            struct aiNodeAnim *na = pz(P, sizeof *na);
            an->mChannels[c] = na;
            name(&b, &na->mNodeName);
            uint8_t order = fz_u8(&b);
            na->mNumPositionKeys = fz_u8(&b) % 9;
            na->mPositionKeys = pz(P, (na->mNumPositionKeys + 1) * sizeof *na->mPositionKeys);
            na->mNumRotationKeys = fz_u8(&b) % 9;
            na->mRotationKeys = pz(P, (na->mNumRotationKeys + 1) * sizeof *na->mRotationKeys);
            na->mNumScalingKeys = fz_u8(&b) % 9;
            na->mScalingKeys = pz(P, (na->mNumScalingKeys + 1) * sizeof *na->mScalingKeys);
            double t = 0;
            for (uint32_t k = 0; k < na->mNumPositionKeys; k++) {
                t += order % 4 ? fz_range(&b, 0, 10) : fz_float(&b, -10, 10);
                na->mPositionKeys[k].mTime = t;
                na->mPositionKeys[k].mValue.x = key(&b, -5, 5, &huge);
            }
            for (uint32_t k = 0; k < na->mNumRotationKeys; k++) {
                na->mRotationKeys[k].mTime = (double)k * fz_range(&b, 0, 10);
                na->mRotationKeys[k].mValue.w = key(&b, -1, 1, &huge);
                na->mRotationKeys[k].mValue.x = key(&b, -1, 1, &huge);
            }
            for (uint32_t k = 0; k < na->mNumScalingKeys; k++) {
                na->mScalingKeys[k].mTime = k;
                na->mScalingKeys[k].mValue.x = key(&b, -3, 3, &huge);
                na->mScalingKeys[k].mValue.y = key(&b, -3, 3, &huge);
                na->mScalingKeys[k].mValue.z = 1;
            }
        }
    }

    sk_asset *asset = NULL;
    sk_error err = {0};
    sk_result r = sk_import_convert_scene(sc, "fuzz", NULL, &asset, &err);
    if (r != SK_OK) {
        if (asset) fz_fail("failure %d with an asset", (int)r);
        if (!err.message[0]) fz_fail("failure %d without a message", (int)r);
    } else {
        if (sk_asset_validate(asset, &err) != SK_OK) fz_fail("an invalid asset: %s", err.message);
        for (uint32_t m = 0; m < asset->mesh_count; m++)
            for (uint32_t p = 0; p < asset->meshes[m].primitive_count; p++) {
                const sk_primitive *pr = &asset->meshes[m].primitives[p];
                if (pr->influence_count > SK_IMPORT_MAX_INFLUENCES) fz_fail("%u influences", pr->influence_count);
                for (size_t k = 0; k < (size_t)pr->vertex_count * pr->influence_count; k++)
                    if (!isfinite(pr->weights[k]) || pr->weights[k] < 0) fz_fail("weight %g", (double)pr->weights[k]);
            }
        sk_pose pose;
        if (sk_pose_alloc(asset->skeleton, NULL, &pose, &err) != SK_OK) fz_fail("pose: %s", err.message);
        for (uint32_t c = 0; c < asset->clip_count; c++)
            for (int k = 0; k < 4; k++) {
                double t = sk_clip_duration(asset->clips[c]) * k / 3.0;
                if (sk_clip_sample(asset->clips[c], asset->skeleton, t, SK_LOOP_CLAMP, &pose, &err) != SK_OK)
                    fz_fail("sample: %s", err.message);
                for (uint32_t j = 0; !huge && j < pose.joint_count; j++) {
                    const float *f = &pose.local[j].t.x;
                    for (int q = 0; q < 10; q++)
                        if (!isfinite(f[q])) fz_fail("clip %u joint %u: not finite", c, j);
                }
            }
        sk_pose_free(&pose, NULL);
        sk_asset_destroy(asset);
    }
    for (int i = 0; i < P->n; i++) free(P->p[i]);
    free(P);
    return 0;
}
