/* Creatures with three, four and six legs (content/creature.h). */
#include "content/content_mesh.h"
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/content/creature.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CR_MAX_JOINTS 32
#define CR_MAX_LEGS 8
#define CR_MAX_PARTS 32
#define CR_RINGS 8   /* 4 latitudes per half: -90..0 around a, 0..90 around b */
#define CR_SIDES 10
#define CR_PART_VERTS (CR_RINGS * CR_SIDES)
#define CR_PART_TRIS ((CR_RINGS - 1) * CR_SIDES * 2)

enum { CR_BODY, CR_LEG, CR_FOOT, CR_HEAD, CR_GROUPS };
static const float cr_colors[3][CR_GROUPS][3] = {
    {{0.80f, 0.55f, 0.20f}, {0.45f, 0.30f, 0.15f}, {0.20f, 0.20f, 0.22f}, {0.90f, 0.85f, 0.70f}},
    {{0.62f, 0.45f, 0.30f}, {0.50f, 0.36f, 0.24f}, {0.20f, 0.16f, 0.12f}, {0.70f, 0.52f, 0.36f}},
    {{0.20f, 0.55f, 0.30f}, {0.12f, 0.32f, 0.18f}, {0.08f, 0.12f, 0.08f}, {0.85f, 0.75f, 0.20f}}};
static const float cr_foot_r[3] = {0.04f, 0.03f, 0.025f};
static const uint32_t cr_legs[3] = {3, 4, 6};

typedef struct cr_rig {
    uint32_t n;
    const char *names[CR_MAX_JOINTS];
    int32_t parents[CR_MAX_JOINTS];
    sk_vec3 world[CR_MAX_JOINTS];
    char namebuf[CR_MAX_JOINTS][16];
} cr_rig;

/* a capsule from a to b (radii ra, rb) on joint, blended toward parent near
 * a and toward child near b (-1: none) */
typedef struct cr_part {
    int joint, parent, child, group;
    sk_vec3 a, b;
    float ra, rb;
} cr_part;

static int cr_add(cr_rig *r, const char *name, int32_t parent, sk_vec3 world) {
    uint32_t j = r->n++;
    snprintf(r->namebuf[j], sizeof r->namebuf[j], "%s", name);
    r->names[j] = r->namebuf[j], r->parents[j] = parent, r->world[j] = world;
    return (int)j;
}

static void cr_leg(cr_rig *r, cr_part *p, uint32_t *np, uint32_t i, sk_vec3 hip, sk_vec3 knee, sk_vec3 foot, float th,
                   float fr) {
    char b[16];
    snprintf(b, sizeof b, "hip_%u", i);
    int h = cr_add(r, b, 0, hip);
    snprintf(b, sizeof b, "knee_%u", i);
    int k = cr_add(r, b, h, knee);
    snprintf(b, sizeof b, "foot_%u", i);
    int f = cr_add(r, b, k, foot);
    p[(*np)++] = (cr_part){h, -1, k, CR_LEG, hip, knee, th, 0.85f * th};
    p[(*np)++] = (cr_part){k, h, f, CR_LEG, knee, foot, 0.85f * th, 0.6f * th};
    p[(*np)++] = (cr_part){f, -1, -1, CR_FOOT, foot, sk_vec3_add(foot, sk_vec3_make(0, 0.001f, 0)), fr, fr};
}

static void cr_build(sk_creature_kind kind, cr_rig *r, cr_part *p, uint32_t *np) {
    memset(r, 0, sizeof *r);
    *np = 0;
    float fr = cr_foot_r[kind];
    if (kind == SK_CREATURE_TRIPOD) {
        cr_add(r, "body", -1, sk_vec3_make(0, 0.70f, 0));
        static const float ang[3] = {1.0472f, -1.0472f, 3.14159265f};
        for (uint32_t i = 0; i < 3; i++) {
            float s = sinf(ang[i]), c = cosf(ang[i]);
            cr_leg(r, p, np, i, sk_vec3_make(0.12f * s, 0.64f, 0.12f * c), sk_vec3_make(0.60f * s, 0.53f, 0.60f * c),
                   sk_vec3_make(0.50f * s, fr, 0.50f * c), 0.045f, fr);
        }
        int hd = cr_add(r, "head", 0, sk_vec3_make(0, 0.86f, 0.06f));
        int he = cr_add(r, "head_end", hd, sk_vec3_make(0, 0.95f, 0.16f));
        p[(*np)++] = (cr_part){0, -1, -1, CR_BODY, sk_vec3_make(0, 0.66f, 0), sk_vec3_make(0, 0.80f, 0), 0.2f, 0.17f};
        p[(*np)++] = (cr_part){hd, -1, -1, CR_HEAD, r->world[hd], r->world[he], 0.07f, 0.05f};
    } else if (kind == SK_CREATURE_QUADRUPED) {
        cr_add(r, "body", -1, sk_vec3_make(0, 0.55f, 0));
        for (uint32_t i = 0; i < 4; i++) {
            float x = (i & 1u) ? -0.12f : 0.12f, z = i < 2 ? 0.28f : -0.28f;
            cr_leg(r, p, np, i, sk_vec3_make(x, 0.52f, z), sk_vec3_make(x, 0.28f, z + 0.12f), sk_vec3_make(x, fr, z),
                   0.05f, fr);
        }
        int nk = cr_add(r, "neck", 0, sk_vec3_make(0, 0.62f, 0.34f));
        int hd = cr_add(r, "head", nk, sk_vec3_make(0, 0.78f, 0.45f));
        int ns = cr_add(r, "nose", hd, sk_vec3_make(0, 0.74f, 0.62f));
        int tl = cr_add(r, "tail", 0, sk_vec3_make(0, 0.58f, -0.36f));
        int te = cr_add(r, "tail_end", tl, sk_vec3_make(0, 0.48f, -0.62f));
        (void)ns, (void)te;
        p[(*np)++] = (cr_part){0, -1, -1, CR_BODY, sk_vec3_make(0, 0.55f, -0.30f), sk_vec3_make(0, 0.57f, 0.30f), 0.14f, 0.15f};
        p[(*np)++] = (cr_part){nk, -1, hd, CR_BODY, r->world[nk], r->world[hd], 0.08f, 0.07f};
        p[(*np)++] = (cr_part){hd, nk, -1, CR_HEAD, r->world[hd], r->world[ns], 0.08f, 0.045f};
        p[(*np)++] = (cr_part){tl, -1, -1, CR_LEG, r->world[tl], r->world[te], 0.035f, 0.02f};
    } else {
        cr_add(r, "body", -1, sk_vec3_make(0, 0.30f, 0));
        for (uint32_t i = 0; i < 6; i++) {
            float sx = (i & 1u) ? -1.0f : 1.0f, z = 0.22f * (1.0f - (float)(i / 2));
            cr_leg(r, p, np, i, sk_vec3_make(0.10f * sx, 0.30f, z), sk_vec3_make(0.32f * sx, 0.42f, 1.2f * z),
                   sk_vec3_make(0.45f * sx, fr, 1.4f * z), 0.03f, fr);
        }
        int hd = cr_add(r, "head", 0, sk_vec3_make(0, 0.32f, 0.30f));
        int he = cr_add(r, "head_end", hd, sk_vec3_make(0, 0.32f, 0.42f));
        p[(*np)++] = (cr_part){0, -1, -1, CR_BODY, sk_vec3_make(0, 0.30f, -0.34f), sk_vec3_make(0, 0.31f, 0.24f), 0.11f, 0.10f};
        p[(*np)++] = (cr_part){hd, -1, -1, CR_HEAD, r->world[hd], r->world[he], 0.08f, 0.06f};
    }
}

typedef content_mesh_out cr_out;

static void cr_emit(cr_out *o, const cr_part *p) {
    sk_vec3 ax = sk_vec3_sub(p->b, p->a);
    float len = skm_vec3_len(ax);
    ax = sk_vec3_scale(ax, 1.0f / len);
    sk_vec3 u = skm_vec3_unit(skm_vec3_perp(ax)), v = sk_vec3_cross(ax, u);
    uint32_t base = o->nv;
    for (uint32_t ring = 0; ring < CR_RINGS; ring++) {
        bool top = ring >= CR_RINGS / 2;
        float lat = top ? (float)(ring - CR_RINGS / 2) * (SKM_PI / 2) / (CR_RINGS / 2 - 1)
                        : -(SKM_PI / 2) + (float)ring * (SKM_PI / 2) / (CR_RINGS / 2 - 1);
        sk_vec3 c = top ? p->b : p->a;
        float r = top ? p->rb : p->ra, cl = cosf(lat), sl = sinf(lat);
        float t = top ? 1.0f : 0.0f;
        for (uint32_t k = 0; k < CR_SIDES; k++) {
            float th = 2 * SKM_PI * (float)k / CR_SIDES;
            sk_vec3 rad = sk_vec3_add(sk_vec3_scale(u, cosf(th)), sk_vec3_scale(v, sinf(th)));
            sk_vec3 n = sk_vec3_add(sk_vec3_scale(rad, cl), sk_vec3_scale(ax, sl));
            sk_vec3 q = sk_vec3_add(c, sk_vec3_scale(n, r));
            uint32_t vi = o->nv++;
            o->pos[3 * vi] = q.x, o->pos[3 * vi + 1] = q.y, o->pos[3 * vi + 2] = q.z;
            o->nrm[3 * vi] = n.x, o->nrm[3 * vi + 1] = n.y, o->nrm[3 * vi + 2] = n.z;
            uint16_t *j = &o->jnt[4 * vi];
            float *w = &o->wts[4 * vi];
            j[0] = (uint16_t)p->joint, j[1] = j[2] = j[3] = 0;
            w[0] = 1, w[1] = w[2] = w[3] = 0;
            /* the ring's place along the bone: 0 at a, 1 at b (caps: their end) */
            float along = len > 0.01f ? skm_clampf(sk_vec3_dot(sk_vec3_sub(q, p->a), ax) / len, 0, 1) : t;
            int other = -1;
            float s = 0;
            if (p->parent >= 0 && along < 0.2f) other = p->parent, s = along / 0.2f;
            else if (p->child >= 0 && along > 0.8f) other = p->child, s = (1.0f - along) / 0.2f;
            if (other >= 0) {
                float m = 0.5f + 0.5f * s * s * (3 - 2 * s); /* half and half at the joint */
                w[0] = m, w[1] = 1.0f - m, j[1] = (uint16_t)other;
            }
        }
    }
    for (uint32_t ring = 0; ring + 1 < CR_RINGS; ring++)
        for (uint32_t k = 0; k < CR_SIDES; k++) {
            uint32_t a = base + ring * CR_SIDES + k, b = base + ring * CR_SIDES + (k + 1) % CR_SIDES;
            uint32_t c = a + CR_SIDES, d = b + CR_SIDES;
            uint32_t *i = &o->idx[o->ni];
            i[0] = a, i[1] = b, i[2] = d, i[3] = a, i[4] = d, i[5] = c;
            o->ni += 6;
        }
}

sk_result sk_creature_create(sk_creature_kind kind, const sk_allocator *alloc, sk_asset **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_creature_create: out is NULL");
    *out = NULL;
    if ((unsigned)kind > SK_CREATURE_HEXAPOD)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_creature_create: unknown kind %d", (int)kind);
    cr_rig rig;
    cr_part parts[CR_MAX_PARTS];
    uint32_t np;
    cr_build(kind, &rig, parts, &np);
    uint32_t J = rig.n, N = J + 1;
    const char *names[CR_MAX_JOINTS + 1];
    int32_t parents[CR_MAX_JOINTS + 1];
    sk_transform rest[CR_MAX_JOINTS + 1];
    for (uint32_t j = 0; j < N; j++) {
        rest[j] = sk_transform_identity();
        if (j < J) {
            names[j] = rig.names[j], parents[j] = rig.parents[j];
            rest[j].t = parents[j] < 0 ? rig.world[j] : sk_vec3_sub(rig.world[j], rig.world[parents[j]]);
        } else {
            names[j] = "creature_mesh", parents[j] = -1;
        }
    }
    sk_asset *a = NULL;
    sk_result r = sk_asset_create_empty(alloc, &a, err);
    if (r != SK_OK) return r;
    sk_skeleton_desc sd = {.joint_count = N, .parents = parents, .names = names, .rest = rest};
    r = sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, err);
    if (r != SK_OK) {
        sk_asset_destroy(a);
        return r;
    }
    a->node_count = N;
    uint32_t *n2j = sk_asset_alloc(a, N * sizeof(uint32_t)), *j2n = sk_asset_alloc(a, N * sizeof(uint32_t));
    int32_t *jm = sk_asset_alloc(a, N * sizeof(int32_t)), *js = sk_asset_alloc(a, N * sizeof(int32_t));
    uint32_t *roots = sk_asset_alloc(a, 2 * sizeof(uint32_t));
    sk_scene *scene = sk_asset_alloc(a, sizeof *scene);
    sk_skin *skin = sk_asset_alloc(a, sizeof *skin);
    uint32_t *skin_joints = sk_asset_alloc(a, J * sizeof(uint32_t));
    sk_mat4 *ibm = sk_asset_alloc(a, J * sizeof(sk_mat4));
    sk_primitive *prims = sk_asset_alloc(a, CR_GROUPS * sizeof(sk_primitive));
    sk_mesh *mesh = sk_asset_alloc(a, sizeof *mesh);
    if (!n2j || !j2n || !jm || !js || !roots || !scene || !skin || !skin_joints || !ibm || !prims || !mesh) goto oom;
    for (uint32_t j = 0; j < N; j++) n2j[j] = j2n[j] = j, jm[j] = -1, js[j] = -1;
    jm[J] = 0, js[J] = 0;
    a->node_to_joint = n2j, a->joint_to_node = j2n, a->joint_mesh = jm, a->joint_skin = js;
    static const char *const kind_names[3] = {"tripod", "quadruped", "hexapod"};
    roots[0] = 0, roots[1] = J;
    scene->name = kind_names[kind], scene->root_count = 2, scene->roots = roots;
    a->scenes = scene, a->scene_count = 1, a->default_scene = 0;
    memset(skin, 0, sizeof *skin), memset(prims, 0, CR_GROUPS * sizeof *prims), memset(mesh, 0, sizeof *mesh);
    for (uint32_t j = 0; j < J; j++) {
        skin_joints[j] = j;
        ibm[j] = sk_mat4_identity(); /* rest rotations are the identity */
        ibm[j].m[12] = -rig.world[j].x, ibm[j].m[13] = -rig.world[j].y, ibm[j].m[14] = -rig.world[j].z;
    }
    skin->name = "creature_skin";
    skin->joint_count = J, skin->joints = skin_joints, skin->inverse_bind = ibm, skin->skeleton_root = 0;
    uint32_t used = 0, per[CR_GROUPS] = {0};
    for (uint32_t i = 0; i < np; i++) per[parts[i].group]++;
    for (uint32_t g = 0; g < CR_GROUPS; g++) {
        if (!per[g]) continue;
        size_t nv = (size_t)per[g] * CR_PART_VERTS, ni = (size_t)per[g] * CR_PART_TRIS * 3;
        cr_out o;
        if (!content_mesh_alloc(a, nv, ni, &o)) goto oom;
        for (uint32_t i = 0; i < np; i++)
            if (parts[i].group == (int)g) cr_emit(&o, &parts[i]);
        sk_primitive *pr = &prims[used++];
        content_primitive(pr, &o, cr_colors[kind][g]);
    }
    mesh->name = kind_names[kind];
    mesh->primitive_count = used, mesh->primitives = prims;
    a->skin_count = 1, a->skins = skin;
    a->mesh_count = 1, a->meshes = mesh;
    a->generator = "skelanim";
    *out = a;
    return SK_OK;
oom:
    sk_asset_destroy(a);
    return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_creature_create: out of memory");
}

int sk_creature_kind_of(const sk_skeleton *skel) {
    if (!skel || skel->joint_count == 0 || !skel->names || !skel->names[0] || strcmp(skel->names[0], "body")) return -1;
    uint32_t n = 0;
    char b[16];
    for (; n < CR_MAX_LEGS; n++) {
        snprintf(b, sizeof b, "hip_%u", n);
        if (sk_skeleton_find(skel, b) < 0) break;
    }
    for (int k = 0; k < 3; k++)
        if (n == cr_legs[k]) return k;
    return -1;
}

uint32_t sk_creature_legs(const sk_skeleton *skel, int32_t *body, sk_creature_leg *out, uint32_t max) {
    int kind = sk_creature_kind_of(skel);
    if (kind < 0) return 0;
    if (body) *body = sk_skeleton_find(skel, "body");
    char b[16];
    for (uint32_t i = 0; i < cr_legs[kind] && i < max && out; i++) {
        snprintf(b, sizeof b, "hip_%u", i);
        out[i].hip = sk_skeleton_find(skel, b);
        snprintf(b, sizeof b, "knee_%u", i);
        out[i].knee = sk_skeleton_find(skel, b);
        snprintf(b, sizeof b, "foot_%u", i);
        out[i].foot = sk_skeleton_find(skel, b);
        out[i].foot_radius = cr_foot_r[kind];
    }
    return cr_legs[kind];
}
