/* The sprite: the planar character with a cut-out mesh (content/sprite.h). */
#include "content/planar_internal.h"
#include "content/content_mesh.h"
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/content/sprite.h"

#include <math.h>
#include <string.h>

enum { SP_SKIN, SP_SKIN_FAR, SP_SHIRT, SP_SHIRT_FAR, SP_TROUSERS, SP_TROUSERS_FAR, SP_SHOES, SP_SHOES_FAR, SP_GROUPS };
static const float sp_colors[SP_GROUPS][3] = {
    {0.93f, 0.76f, 0.62f}, {0.72f, 0.58f, 0.47f}, {0.22f, 0.47f, 0.82f}, {0.14f, 0.31f, 0.56f},
    {0.30f, 0.30f, 0.38f}, {0.18f, 0.18f, 0.24f}, {0.42f, 0.25f, 0.14f}, {0.27f, 0.16f, 0.09f}};

/* One piece: a capsule outline from a to b (y, z) with radii ra, rb at depth
 * x, weighted to joint, blended toward parent within a fifth of its length
 * of a and toward child within a fifth of b (-1: none). */
typedef struct sp_part {
    int joint, parent, child, group;
    float a[2], b[2], ra, rb, x;
} sp_part;

#define SP_SEG 8  /* quads along a piece */
#define SP_CAP 6  /* triangles per rounded end */
#define SP_PART_VERTS (2 * (SP_SEG + 1) + 2 * (SP_CAP + 2))
#define SP_PART_TRIS (2 * SP_SEG + 2 * SP_CAP)

static uint32_t sp_parts(sp_part *p) {
    uint32_t n = 0;
    /* torso, neck, head */
    p[n++] = (sp_part){PL_PELVIS, -1, PL_SPINE, SP_TROUSERS, {0.84f, 0}, {1.10f, 0}, 0.125f, 0.115f, 0};
    p[n++] = (sp_part){PL_SPINE, PL_PELVIS, PL_CHEST, SP_SHIRT, {1.10f, 0}, {1.35f, 0}, 0.115f, 0.125f, 0};
    p[n++] = (sp_part){PL_CHEST, PL_SPINE, -1, SP_SHIRT, {1.35f, 0}, {1.50f, 0}, 0.125f, 0.12f, 0};
    p[n++] = (sp_part){PL_NECK, PL_CHEST, PL_HEAD, SP_SKIN, {1.46f, 0}, {1.60f, 0}, 0.045f, 0.045f, -0.01f};
    p[n++] = (sp_part){PL_HEAD, -1, -1, SP_SKIN, {1.65f, 0.02f}, {1.74f, 0.02f}, 0.1f, 0.1f, 0.005f};
    /* arms and legs: the left side in front (+x), the right behind, darker */
    for (int s = 0; s < 2; s++) {
        float ax = s ? -0.08f : 0.08f, lx = s ? -0.05f : 0.05f;
        int d = s; /* the far side's colours follow the near side's */
        int ua = s ? PL_UPPERARM_R : PL_UPPERARM_L, th = s ? PL_THIGH_R : PL_THIGH_L;
        p[n++] = (sp_part){ua, -1, ua + 1, SP_SHIRT + d, {1.55f, 0}, {1.27f, 0}, 0.05f, 0.042f, ax};
        p[n++] = (sp_part){ua + 1, ua, ua + 2, SP_SHIRT + d, {1.27f, 0}, {1.01f, 0}, 0.042f, 0.036f, ax};
        p[n++] = (sp_part){ua + 2, ua + 1, -1, SP_SKIN + d, {1.01f, 0}, {0.93f, 0}, 0.04f, 0.035f, ax + 0.001f};
        p[n++] = (sp_part){th, -1, th + 1, SP_TROUSERS + d, {0.90f, 0}, {0.47f, 0}, 0.075f, 0.058f, lx};
        p[n++] = (sp_part){th + 1, th, th + 2, SP_TROUSERS + d, {0.47f, 0}, {0.05f, 0}, 0.058f, 0.042f, lx};
        /* the foot's sole and the toe's at the toe joint's rest height, -0.01 */
        p[n++] = (sp_part){th + 2, -1, th + 3, SP_SHOES + d, {0.025f, 0.0f}, {0.015f, 0.12f}, 0.035f, 0.025f, lx + 0.001f};
        p[n++] = (sp_part){th + 3, th + 2, -1, SP_SHOES + d, {0.012f, 0.12f}, {0.012f, 0.20f}, 0.022f, 0.022f, lx + 0.002f};
    }
    return n;
}

typedef content_mesh_out sp_out;

static void sp_vertex(sp_out *o, const sp_part *p, float y, float z, float t) {
    uint32_t v = o->nv++;
    o->pos[3 * v] = p->x, o->pos[3 * v + 1] = y, o->pos[3 * v + 2] = z;
    o->nrm[3 * v] = 1, o->nrm[3 * v + 1] = 0, o->nrm[3 * v + 2] = 0;
    uint16_t *j = &o->jnt[4 * v];
    float *w = &o->wts[4 * v];
    j[0] = (uint16_t)p->joint, j[1] = j[2] = j[3] = 0;
    w[0] = 1, w[1] = w[2] = w[3] = 0;
    int other = -1;
    float u = 0;
    if (p->parent >= 0 && t < 0.2f) other = p->parent, u = t / 0.2f;
    else if (p->child >= 0 && t > 0.8f) other = p->child, u = (1.0f - t) / 0.2f;
    if (other >= 0) {
        u = skm_clampf(u, 0, 1);
        float s = 0.5f + 0.5f * u * u * (3 - 2 * u); /* half and half at the joint */
        w[0] = s, w[1] = 1.0f - s, j[1] = (uint16_t)other;
    }
}

/* A triangle wound counter-clockwise as seen from +X (screen x = -z, y up). */
static void sp_tri(sp_out *o, uint32_t a, uint32_t b, uint32_t c) {
    const float *A = &o->pos[3 * a], *B = &o->pos[3 * b], *C = &o->pos[3 * c];
    float cross = (-(B[2] - A[2])) * (C[1] - A[1]) - (B[1] - A[1]) * (-(C[2] - A[2]));
    uint32_t *i = &o->idx[o->ni];
    i[0] = a, i[1] = cross >= 0 ? b : c, i[2] = cross >= 0 ? c : b;
    o->ni += 3;
}

static void sp_emit(sp_out *o, const sp_part *p) {
    float dy = p->b[0] - p->a[0], dz = p->b[1] - p->a[1], len = sqrtf(dy * dy + dz * dz);
    dy /= len, dz /= len;
    float ny = -dz, nz = dy; /* across the piece */
    uint32_t base = o->nv;
    for (int i = 0; i <= SP_SEG; i++) {
        float t = (float)i / SP_SEG, r = p->ra + t * (p->rb - p->ra);
        float cy = p->a[0] + t * (p->b[0] - p->a[0]), cz = p->a[1] + t * (p->b[1] - p->a[1]);
        sp_vertex(o, p, cy + r * ny, cz + r * nz, t);
        sp_vertex(o, p, cy - r * ny, cz - r * nz, t);
    }
    for (uint32_t i = 0; i < SP_SEG; i++) {
        uint32_t l0 = base + 2 * i, r0 = l0 + 1, l1 = l0 + 2, r1 = l0 + 3;
        sp_tri(o, l0, r0, r1);
        sp_tri(o, l0, r1, l1);
    }
    /* the rounded ends: a fan from the end's centre over a half circle away from the piece */
    for (int e = 0; e < 2; e++) {
        const float *c = e ? p->b : p->a;
        float r = e ? p->rb : p->ra, sgn = e ? 1.0f : -1.0f, t = e ? 1.0f : 0.0f;
        uint32_t centre = o->nv;
        sp_vertex(o, p, c[0], c[1], t);
        for (int k = 0; k <= SP_CAP; k++) {
            float th = (float)k * SKM_PI / SP_CAP, cs = cosf(th), sn = sinf(th);
            sp_vertex(o, p, c[0] + r * (cs * ny + sgn * sn * dy), c[1] + r * (cs * nz + sgn * sn * dz), t);
        }
        for (uint32_t k = 0; k < SP_CAP; k++) sp_tri(o, centre, centre + 1 + k, centre + 2 + k);
    }
}

sk_result sk_sprite_create(const sk_allocator *alloc, sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_sprite_create: out is NULL");
    *out = NULL;
    sk_vec3 world[PL_COUNT];
    sk_asset *a = NULL;
    sk_result r = sk_planar_asset_create(alloc, "sprite_mesh", &a, world, err);
    if (r != SK_OK) return r;
    sp_part parts[32];
    uint32_t np = sp_parts(parts), per[SP_GROUPS] = {0};
    for (uint32_t i = 0; i < np; i++) per[parts[i].group]++;
    sk_skin *skin = sk_asset_alloc(a, sizeof *skin);
    uint32_t *skin_joints = sk_asset_alloc(a, PL_COUNT * sizeof(uint32_t));
    sk_mat4 *ibm = sk_asset_alloc(a, PL_COUNT * sizeof(sk_mat4));
    sk_primitive *prims = sk_asset_alloc(a, SP_GROUPS * sizeof(sk_primitive));
    sk_mesh *mesh = sk_asset_alloc(a, sizeof *mesh);
    if (!skin || !skin_joints || !ibm || !prims || !mesh) goto oom;
    memset(skin, 0, sizeof *skin), memset(prims, 0, SP_GROUPS * sizeof *prims), memset(mesh, 0, sizeof *mesh);
    for (uint32_t j = 0; j < PL_COUNT; j++) {
        skin_joints[j] = j;
        ibm[j] = sk_mat4_identity(); /* rest rotations are the identity */
        ibm[j].m[12] = -world[j].x, ibm[j].m[13] = -world[j].y, ibm[j].m[14] = -world[j].z;
    }
    skin->name = "sprite_skin";
    skin->joint_count = PL_COUNT;
    skin->joints = skin_joints;
    skin->inverse_bind = ibm;
    skin->skeleton_root = PL_PELVIS;
    uint32_t np_used = 0;
    for (uint32_t g = 0; g < SP_GROUPS; g++) {
        if (!per[g]) continue;
        size_t nv = (size_t)per[g] * SP_PART_VERTS, ni = (size_t)per[g] * SP_PART_TRIS * 3;
        sp_out o;
        if (!content_mesh_alloc(a, nv, ni, &o)) goto oom;
        for (uint32_t i = 0; i < np; i++)
            if (parts[i].group == (int)g) sp_emit(&o, &parts[i]);
        sk_primitive *pr = &prims[np_used++];
        content_primitive(pr, &o, sp_colors[g]);
    }
    mesh->name = "sprite";
    mesh->primitive_count = np_used;
    mesh->primitives = prims;
    a->skin_count = 1, a->skins = skin;
    a->mesh_count = 1, a->meshes = mesh;
    a->generator = "skelanim";
    *out = a;
    return SK_OK;
oom:
    sk_asset_destroy(a);
    return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_sprite_create: out of memory");
}
