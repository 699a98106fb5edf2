/* skelanim command-line tool: the triangle-mesh locomotion course (course.h). */
#include "course.h"

#include <math.h>
#include <string.h>

#define COURSE_X_CELLS 32
#define COURSE_HALF_WIDTH 8.0f
#define COURSE_MAX_ROWS 256
#define COURSE_PI 3.14159265358979f

typedef struct row { float z, base; bool bumpy; } row;

static float bump(float x, float z) {
    return 0.08f * sinf(2.0f * COURSE_PI * x / 1.9f) * sinf(2.0f * COURSE_PI * (z - 11.0f) / 2.5f);
}

static uint32_t add(row *r, uint32_t n, float z, float base, bool bumpy) {
    if (n < COURSE_MAX_ROWS) r[n++] = (row){z, base, bumpy};
    return n;
}

/* The profile along +Z (see course.h). */
static uint32_t course_rows(row *r) {
    uint32_t n = 0;
    const float t10 = tanf(10.0f * COURSE_PI / 180.0f), t20 = tanf(20.0f * COURSE_PI / 180.0f);
    for (float z = -2.0f; z < 3.0f - 1e-4f; z += 0.5f) n = add(r, n, z, 0, false);
    for (int k = 0; k <= 12; k++) n = add(r, n, 3.0f + 0.25f * k, 0.25f * k * t10, false);
    float y = 3.0f * t10;
    n = add(r, n, 6.75f, y, false);
    float z = 7.5f;
    for (int k = 0; k < 6; k++, z += 0.3f) { /* stairs up: a riser is two rows at the same z */
        n = add(r, n, z, y, false);
        y += 0.15f;
        n = add(r, n, z, y, false);
    }
    for (; z < 11.0f - 1e-4f; z += 0.425f) n = add(r, n, z, y, false);
    for (int k = 0; k <= 50; k++) n = add(r, n, 11.0f + 0.1f * k, y, true);
    for (int k = 1; k <= 8; k++) n = add(r, n, 16.0f + 0.25f * k, y - 0.25f * k * t20, false);
    y -= 2.0f * t20;
    n = add(r, n, 18.75f, y, false);
    z = 19.5f;
    for (int k = 0; k < 4; k++, z += 0.3f) { /* stairs down */
        n = add(r, n, z, y, false);
        y -= 0.15f;
        n = add(r, n, z, y, false);
    }
    for (; z <= 26.0f + 1e-4f; z += 0.5f) n = add(r, n, z, y, false);
    return n;
}

sk_result cli_course_asset(sk_asset **out, sk_error *err) {
    *out = NULL;
    row rows[COURSE_MAX_ROWS];
    uint32_t nr = course_rows(rows);
    sk_asset *a = NULL;
    sk_result r = sk_asset_create_empty(NULL, &a, err);
    if (r != SK_OK) return r;
    int32_t parents[1] = {-1};
    sk_transform rest[1] = {sk_transform_identity()};
    const char *names[1] = {"course"};
    sk_skeleton_desc sd = {.joint_count = 1, .parents = parents, .rest = rest, .names = names};
    r = sk_skeleton_create(&sd, sk_asset_allocator(a), &a->skeleton, err);
    if (r != SK_OK) {
        sk_asset_destroy(a);
        return r;
    }
    a->node_count = 1;
    const uint32_t cols = COURSE_X_CELLS + 1, nv = nr * cols, ni = (nr - 1) * COURSE_X_CELLS * 6;
    float *v = sk_asset_alloc(a, sizeof(float) * 3 * nv);
    uint32_t *ix = sk_asset_alloc(a, sizeof(uint32_t) * ni);
    sk_primitive *prim = sk_asset_alloc(a, sizeof *prim);
    sk_mesh *mesh = sk_asset_alloc(a, sizeof *mesh);
    int32_t *jm = sk_asset_alloc(a, sizeof(int32_t)), *js = sk_asset_alloc(a, sizeof(int32_t));
    uint32_t *n2j = sk_asset_alloc(a, sizeof(uint32_t)), *j2n = sk_asset_alloc(a, sizeof(uint32_t));
    uint32_t *roots = sk_asset_alloc(a, sizeof(uint32_t));
    sk_scene *scene = sk_asset_alloc(a, sizeof *scene);
    if (!v || !ix || !prim || !mesh || !jm || !js || !n2j || !j2n || !roots || !scene) {
        sk_asset_destroy(a);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "course: out of memory");
    }
    for (uint32_t i = 0; i < nr; i++)
        for (uint32_t c = 0; c < cols; c++) {
            float x = -COURSE_HALF_WIDTH + 2.0f * COURSE_HALF_WIDTH * (float)c / COURSE_X_CELLS;
            float *p = v + 3 * ((size_t)i * cols + c);
            p[0] = x;
            p[1] = rows[i].base + (rows[i].bumpy ? bump(x, rows[i].z) : 0.0f);
            p[2] = rows[i].z;
        }
    uint32_t k = 0;
    for (uint32_t i = 0; i + 1 < nr; i++)
        for (uint32_t c = 0; c < COURSE_X_CELLS; c++) {
            uint32_t a0 = i * cols + c, a1 = a0 + 1, b0 = a0 + cols, b1 = b0 + 1;
            uint32_t q[6] = {a0, b0, b1, a0, b1, a1}; /* counter-clockwise seen from above */
            memcpy(ix + k, q, sizeof q);
            k += 6;
        }
    *prim = (sk_primitive){.mode = 4, .vertex_count = nv, .positions = v, .index_count = ni, .indices = ix,
                           .material = -1, .base_color = {0.62f, 0.6f, 0.56f, 1.0f}};
    *mesh = (sk_mesh){.name = "course", .primitive_count = 1, .primitives = prim};
    jm[0] = 0, js[0] = -1, n2j[0] = 0, j2n[0] = 0;
    a->meshes = mesh, a->mesh_count = 1, a->joint_mesh = jm, a->joint_skin = js;
    a->node_to_joint = n2j, a->joint_to_node = j2n;
    roots[0] = 0;
    scene->name = "course", scene->root_count = 1, scene->roots = roots;
    a->scenes = scene, a->scene_count = 1, a->default_scene = 0;
    *out = a;
    return SK_OK;
}
