/* The importer's conversion (src/import/import_internal.h) on scenes built
 * here, so that each rule is checked against a value worked out by hand:
 * more than 8 influences (the 8 largest kept, renormalised to sum 1, one
 * warning), influences as stored otherwise, skins from bones (offset
 * matrices as inverse binds, shared by the meshes of a node), tick rates
 * (0: 25 per second, with a warning), quaternions w-first in assimp,
 * channels naming no node (skipped, warned), and hostile scenes refused
 * with a message naming the place. */
#include "support.h"

#include "import/import_internal.h"

#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 10 /* bones j0..j9 */

typedef struct scene_store {
    struct aiScene sc;
    struct aiNode root, joint[NB], meshnode;
    struct aiNode *root_children[NB + 1];
    struct aiNode *joint_children[1];
    unsigned int mesh_index[1];
    struct aiMesh mesh, *meshes[1];
    struct aiVector3D pos[3];
    struct aiFace face;
    unsigned int idx[3];
    struct aiBone bone[NB], *bones[NB];
    struct aiVertexWeight w[NB][2];
    struct aiAnimation anim, *anims[1];
    struct aiNodeAnim chan[2], *chans[2];
    struct aiVectorKey pk[2];
    struct aiQuatKey rk[1];
} scene_store;

static void set_name(struct aiString *s, const char *n) {
    s->length = (uint32_t)strlen(n);
    memcpy(s->data, n, s->length + 1);
}

static void identity(struct aiMatrix4x4 *m) {
    memset(m, 0, sizeof *m);
    m->a1 = m->b2 = m->c3 = m->d4 = 1.0f;
}

/* root -> j0..j9 (flat), root -> meshnode (one triangle). Vertex 0: bone k
 * weighs k + 1 (10 influences); vertex 1: j0 0.25, j1 0.5 (2, sum 0.75);
 * vertex 2: none. Bone k's offset matrix translates by (-k, 0, 0). One
 * animation, 0 ticks per second: j3 moves from (0,0,0) at tick 0 to
 * (1,2,3) at tick 50, and turns to w-first (0.6, 0.8, 0, 0); a channel for
 * "nobody". */
static void build(scene_store *s) {
    memset(s, 0, sizeof *s);
    set_name(&s->root.mName, "root");
    identity(&s->root.mTransformation);
    s->root.mChildren = s->root_children;
    for (int k = 0; k < NB; k++) {
        char n[8];
        snprintf(n, sizeof n, "j%d", k);
        set_name(&s->joint[k].mName, n);
        identity(&s->joint[k].mTransformation);
        s->joint[k].mTransformation.a4 = (float)k;
        s->joint[k].mParent = &s->root;
        s->root_children[s->root.mNumChildren++] = &s->joint[k];
    }
    set_name(&s->meshnode.mName, "body");
    identity(&s->meshnode.mTransformation);
    s->meshnode.mParent = &s->root;
    s->meshnode.mNumMeshes = 1;
    s->meshnode.mMeshes = s->mesh_index;
    s->root_children[s->root.mNumChildren++] = &s->meshnode;
    s->sc.mRootNode = &s->root;

    struct aiMesh *m = &s->mesh;
    set_name(&m->mName, "body");
    m->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    m->mNumVertices = 3;
    m->mVertices = s->pos;
    s->pos[1].x = 1.0f;
    s->pos[2].y = 1.0f;
    m->mNumFaces = 1;
    m->mFaces = &s->face;
    s->face.mNumIndices = 3;
    s->face.mIndices = s->idx;
    s->idx[0] = 0, s->idx[1] = 1, s->idx[2] = 2;
    m->mNumBones = NB;
    m->mBones = s->bones;
    for (int k = 0; k < NB; k++) {
        struct aiBone *b = &s->bone[k];
        s->bones[k] = b;
        char n[8];
        snprintf(n, sizeof n, "j%d", k);
        set_name(&b->mName, n);
        identity(&b->mOffsetMatrix);
        b->mOffsetMatrix.a4 = -(float)k;
        b->mWeights = s->w[k];
        b->mWeights[b->mNumWeights++] = (struct aiVertexWeight){0, (float)(k + 1)};
        if (k == 0) b->mWeights[b->mNumWeights++] = (struct aiVertexWeight){1, 0.25f};
        if (k == 1) b->mWeights[b->mNumWeights++] = (struct aiVertexWeight){1, 0.5f};
    }
    s->meshes[0] = m;
    s->sc.mNumMeshes = 1;
    s->sc.mMeshes = s->meshes;

    struct aiAnimation *a = &s->anim;
    set_name(&a->mName, "walk");
    a->mTicksPerSecond = 0.0;
    a->mDuration = 50.0;
    a->mNumChannels = 2;
    a->mChannels = s->chans;
    s->chans[0] = &s->chan[0];
    s->chans[1] = &s->chan[1];
    set_name(&s->chan[0].mNodeName, "j3");
    s->chan[0].mNumPositionKeys = 2;
    s->chan[0].mPositionKeys = s->pk;
    s->pk[0].mTime = 0.0;
    s->pk[1].mTime = 50.0;
    s->pk[1].mValue = (struct aiVector3D){1, 2, 3};
    s->chan[0].mNumRotationKeys = 1;
    s->chan[0].mRotationKeys = s->rk;
    s->rk[0].mTime = 0.0;
    s->rk[0].mValue = (struct aiQuaternion){0.6f, 0.8f, 0.0f, 0.0f}; /* w, x, y, z */
    set_name(&s->chan[1].mNodeName, "nobody");
    s->chan[1].mNumPositionKeys = 1;
    s->chan[1].mPositionKeys = s->pk;
    s->anims[0] = a;
    s->sc.mNumAnimations = 1;
    s->sc.mAnimations = s->anims;
}

typedef struct warnings {
    int count, influences, ticks, channel;
} warnings;

static void on_warning(void *user, const char *msg) {
    warnings *w = user;
    w->count++;
    if (strstr(msg, "more than 8 influences") && strstr(msg, "1 vertices") && strstr(msg, "up to 10")) w->influences++;
    if (strstr(msg, "no tick rate") && strstr(msg, "25")) w->ticks++;
    if (strstr(msg, "'nobody'") && strstr(msg, "names no node")) w->channel++;
}

static sk_asset *convert(const scene_store *s, warnings *w, sk_error *err) {
    sk_import_options o = {.warning = on_warning, .warning_user = w};
    sk_asset *a = NULL;
    sk_result r = sk_import_convert_scene(&s->sc, "synthetic", &o, &a, err);
    if (r != SK_OK) return NULL;
    return a;
}

static void test_influences_and_skin(void **state) {
    (void)state;
    scene_store *s = calloc(1, sizeof *s);
    build(s);
    warnings w = {0};
    sk_error err = {0};
    sk_asset *a = convert(s, &w, &err);
    if (!a) fail_msg("%s", err.message);
    assert_int_equal(a->node_count, NB + 2);
    assert_int_equal(a->mesh_count, 1);
    assert_int_equal(a->skin_count, 1);
    const sk_skin *sk = &a->skins[0];
    assert_int_equal(sk->joint_count, NB);
    int32_t body = sk_skeleton_find(a->skeleton, "body");
    assert_true(body >= 0);
    assert_int_equal(a->joint_skin[body], 0);
    assert_int_equal(a->joint_mesh[body], 0);
    /* Skin joint q is the node named by its bone; inverse bind = offset (translation -k). */
    int bone_of_entry[NB];
    for (uint32_t q = 0; q < NB; q++) {
        const char *n = a->skeleton->names[sk->joints[q]];
        assert_true(n[0] == 'j');
        bone_of_entry[q] = atoi(n + 1);
        assert_float_equal(sk->inverse_bind[q].m[12], -(float)bone_of_entry[q], 0);
    }
    const sk_primitive *p = &a->meshes[0].primitives[0];
    assert_int_equal(p->influence_count, 8);
    assert_int_equal(p->vertex_count, 3);
    assert_int_equal(p->index_count, 3);
    /* Vertex 0: bones 2..9 (weights 3..10) kept, each (k+1)/52. */
    double sum = 0;
    int seen[NB] = {0};
    for (int i = 0; i < 8; i++) {
        int k = bone_of_entry[p->joints[i]];
        seen[k]++;
        assert_float_equal(p->weights[i], (k + 1) / 52.0, 1e-6);
        sum += p->weights[i];
    }
    assert_float_equal(sum, 1.0, 1e-6);
    assert_int_equal(seen[0] + seen[1], 0);
    for (int k = 2; k < NB; k++) assert_int_equal(seen[k], 1);
    /* Vertex 1: as stored (0.25 on j0, 0.5 on j1, not renormalised), then zeros. */
    double w0 = 0, w1 = 0, rest = 0;
    for (int i = 0; i < 8; i++) {
        float wt = p->weights[8 + i];
        int k = bone_of_entry[p->joints[8 + i]];
        if (wt != 0 && k == 0) w0 += wt;
        else if (wt != 0 && k == 1) w1 += wt;
        else rest += wt;
    }
    assert_float_equal(w0, 0.25, 0);
    assert_float_equal(w1, 0.5, 0);
    assert_float_equal(rest, 0, 0);
    for (int i = 0; i < 8; i++) assert_float_equal(p->weights[16 + i], 0, 0);
    assert_int_equal(w.influences, 1);
    /* The clip: 0 ticks/s -> 25: tick 50 is 2 s; quaternion (w,x,y,z) = (0.6,0.8,0,0) -> x 0.8, w 0.6. */
    assert_int_equal(a->clip_count, 1);
    const sk_clip *c = a->clips[0];
    assert_string_equal(sk_clip_name(c), "walk");
    assert_float_equal(sk_clip_duration(c), 2.0, 1e-9);
    assert_int_equal(sk_clip_track_count(c), 2);
    int32_t j3 = sk_skeleton_find(a->skeleton, "j3");
    for (uint32_t t = 0; t < 2; t++) {
        sk_track_info ti;
        assert_true(sk_clip_track_info(c, t, &ti));
        assert_int_equal(ti.joint, (uint32_t)j3);
        float times[2], vals[8];
        assert_true(sk_clip_track_keys(c, t, times, vals));
        if (ti.path == SK_PATH_TRANSLATION) {
            assert_int_equal(ti.key_count, 2);
            assert_float_equal(times[1], 2.0, 1e-6);
            assert_float_equal(vals[3], 1, 0);
            assert_float_equal(vals[4], 2, 0);
            assert_float_equal(vals[5], 3, 0);
        } else {
            assert_int_equal(ti.path, SK_PATH_ROTATION);
            assert_float_equal(vals[0], 0.8, 1e-6);
            assert_float_equal(vals[3], 0.6, 1e-6);
        }
    }
    assert_int_equal(w.ticks, 1);
    assert_int_equal(w.channel, 1);
    assert_int_equal(w.count, 3);
    /* Rest transforms: node k at x = k. */
    assert_float_equal(a->skeleton->rest[sk_skeleton_find(a->skeleton, "j7")].t.x, 7, 0);
    sk_asset_destroy(a);
    free(s);
}

/* Each hostile change to the good scene: refused, message naming the place. */
static void test_hostile(void **state) {
    (void)state;
    int checked = 0;
    for (int kind = 0; kind < 9; kind++) {
        scene_store *s = calloc(1, sizeof *s);
        build(s);
        const char *want = "";
        switch (kind) {
        case 0: set_name(&s->bone[4].mName, "ghost"), want = "bone 'ghost' names no node"; break;
        case 1: s->idx[2] = 3, want = "index 3 >= vertex count 3"; break;
        case 2: s->pos[1].y = NAN, want = "vertex 1 position not finite"; break;
        case 3: s->w[5][0].mVertexId = 7, want = "names no vertex"; break;
        case 4: s->w[5][0].mWeight = -1, want = "not a finite weight"; break;
        case 5: s->joint[2].mParent = &s->meshnode, want = "not a tree child"; break;
        case 6: s->pk[0].mTime = 60.0, want = "before the previous key"; break;
        case 7: s->rk[0].mValue = (struct aiQuaternion){0, 0, 0, 0}, want = "not a rotation"; break;
        case 8: s->mesh_index[0] = 1, want = "mesh 1 of 1"; break;
        }
        warnings w = {0};
        sk_error err = {0};
        sk_asset *a = convert(s, &w, &err);
        if (a) fail_msg("hostile case %d loaded", kind);
        if (!strstr(err.message, want) || !strstr(err.message, "synthetic"))
            fail_msg("case %d: '%s' lacks '%s'", kind, err.message, want);
        checked++;
        free(s);
    }
    /* A bone name as long as assimp's buffer, without a NUL: cut, not read past. */
    scene_store *s = calloc(1, sizeof *s);
    build(s);
    memset(s->bone[0].mName.data, 'y', MAXLEN);
    s->bone[0].mName.length = 0xffffffffu;
    sk_error err = {0};
    warnings w = {0};
    assert_null(convert(s, &w, &err));
    if (!strstr(err.message, "names no node")) fail_msg("%s", err.message);
    free(s);
    assert_int_equal(checked, 9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_influences_and_skin),
        cmocka_unit_test(test_hostile),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
