/* The sprite (content/sprite.h): the planar character's skeleton with a
 * cut-out 2D mesh.
 *
 * References written here: the planar rig (sk_planar_rig_create) for the
 * skeleton; for the mesh, the properties the header states (normals +X,
 * at most two influences summing to 1, pieces in the side plane); and for
 * skinning, linear blend skinning computed in double from the pose's local
 * transforms (quaternions to matrices and the parent chain in double, not
 * the library's local-to-model) against the library's sk_skin_run at every
 * SIMD level this CPU has. Posed by turns about X only, a cut-out stays in
 * its plane: every vertex keeps its depth x. */
#include "support.h"

#include "skelanim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dm4 { double m[16]; } dm4; /* column-major */

static dm4 dm_from_transform(const sk_transform *x) {
    double qx = x->r.x, qy = x->r.y, qz = x->r.z, qw = x->r.w, n = sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    qx /= n, qy /= n, qz /= n, qw /= n;
    dm4 r = {{0}};
    r.m[0] = (1 - 2 * (qy * qy + qz * qz)) * x->s.x, r.m[1] = 2 * (qx * qy + qz * qw) * x->s.x, r.m[2] = 2 * (qx * qz - qy * qw) * x->s.x;
    r.m[4] = 2 * (qx * qy - qz * qw) * x->s.y, r.m[5] = (1 - 2 * (qx * qx + qz * qz)) * x->s.y, r.m[6] = 2 * (qy * qz + qx * qw) * x->s.y;
    r.m[8] = 2 * (qx * qz + qy * qw) * x->s.z, r.m[9] = 2 * (qy * qz - qx * qw) * x->s.z, r.m[10] = (1 - 2 * (qx * qx + qy * qy)) * x->s.z;
    r.m[12] = x->t.x, r.m[13] = x->t.y, r.m[14] = x->t.z, r.m[15] = 1;
    return r;
}

static dm4 dm_mul(const dm4 *a, const dm4 *b) {
    dm4 r;
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a->m[k * 4 + i] * b->m[c * 4 + k];
            r.m[c * 4 + i] = s;
        }
    return r;
}

static void test_skeleton(void **st) {
    (void)st;
    sk_asset *s = NULL, *p = NULL;
    sk_error err = {0};
    assert_int_equal(sk_sprite_create(NULL, &s, &err), SK_OK);
    assert_int_equal(sk_planar_rig_create(NULL, &p, &err), SK_OK);
    const sk_skeleton *a = s->skeleton, *b = p->skeleton;
    assert_int_equal(a->joint_count, b->joint_count + 1);
    for (uint32_t j = 0; j < b->joint_count; j++) {
        assert_string_equal(a->names[j], b->names[j]);
        assert_int_equal(a->parents[j], b->parents[j]);
        assert_memory_equal(&a->rest[j], &b->rest[j], sizeof(sk_transform));
    }
    assert_string_equal(a->names[b->joint_count], "sprite_mesh");
    assert_int_equal(a->parents[b->joint_count], -1);
    assert_int_equal(s->skin_count, 1);
    assert_int_equal(s->skins[0].joint_count, b->joint_count);
    assert_int_equal(s->mesh_count, 1);
    assert_int_equal(s->joint_mesh[b->joint_count], 0);
    assert_int_equal(s->joint_skin[b->joint_count], 0);
    assert_int_equal(sk_sprite_create(NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    sk_asset_destroy(s);
    sk_asset_destroy(p);
}

/* The mesh's stated properties, over every vertex and triangle. */
static void test_mesh(void **st) {
    (void)st;
    sk_asset *s = NULL;
    assert_int_equal(sk_sprite_create(NULL, &s, NULL), SK_OK);
    const sk_mesh *m = &s->meshes[0];
    uint32_t verts = 0, tris = 0, blended = 0;
    float zmin = INFINITY, zmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    assert_true(m->primitive_count >= 4);
    for (uint32_t i = 0; i < m->primitive_count; i++) {
        const sk_primitive *pr = &m->primitives[i];
        assert_int_equal(pr->influence_count, 4);
        assert_non_null(pr->normals);
        for (uint32_t v = 0; v < pr->vertex_count; v++, verts++) {
            const float *n = &pr->normals[3 * v], *x = &pr->positions[3 * v], *w = &pr->weights[4 * v];
            assert_true(n[0] == 1.0f && n[1] == 0.0f && n[2] == 0.0f);
            assert_true(fabsf(x[0]) <= 0.1f); /* a cut-out: in the side plane, at a small depth */
            zmin = fminf(zmin, x[2]), zmax = fmaxf(zmax, x[2]), ymin = fminf(ymin, x[1]), ymax = fmaxf(ymax, x[1]);
            float sum = 0;
            int nonzero = 0;
            for (int k = 0; k < 4; k++) {
                assert_true(w[k] >= 0.0f);
                sum += w[k], nonzero += w[k] > 0;
                if (w[k] > 0) assert_true(pr->joints[4 * v + k] < s->skins[0].joint_count);
            }
            assert_true(fabsf(sum - 1.0f) < 1e-6f);
            assert_true(nonzero >= 1 && nonzero <= 2);
            blended += nonzero == 2;
        }
        assert_int_equal(pr->index_count % 3, 0);
        for (uint32_t t = 0; t < pr->index_count; t += 3, tris++) {
            const uint32_t *q = &pr->indices[t];
            assert_true(q[0] < pr->vertex_count && q[1] < pr->vertex_count && q[2] < pr->vertex_count);
            /* wound counter-clockwise seen from +X (screen x = -z, y up), not degenerate */
            const float *A = &pr->positions[3 * q[0]], *B = &pr->positions[3 * q[1]], *C = &pr->positions[3 * q[2]];
            float cross = (A[2] - B[2]) * (C[1] - A[1]) - (B[1] - A[1]) * (A[2] - C[2]);
            assert_true(cross > 0.0f);
        }
    }
    printf("sprite: %u primitives, %u vertices (%u blended across a joint), %u triangles; y %.3f..%.3f m, z %.3f..%.3f m\n",
           m->primitive_count, verts, blended, tris, (double)ymin, (double)ymax, (double)zmin, (double)zmax);
    assert_true(blended > 0);
    assert_true(ymin < 0.0f && ymin > -0.02f); /* the soles at the toe joint's rest height, -0.01 */
    assert_true(ymax > 1.7f && ymax < 1.9f);
    sk_asset_destroy(s);
}

/* LBS in double against sk_skin_run, at rest and in three seeded poses of turns about X. */
static void test_skinning(void **st) {
    (void)st;
    sk_asset *s = NULL;
    sk_error err = {0};
    assert_int_equal(sk_sprite_create(NULL, &s, &err), SK_OK);
    const sk_skeleton *sk = s->skeleton;
    const sk_skin *skin = &s->skins[0];
    uint32_t J = sk->joint_count, checked = 0;
    sk_transform *local = calloc(J, sizeof *local);
    sk_mat4 *model = calloc(J, sizeof *model), *pal = calloc(skin->joint_count, sizeof *pal);
    dm4 *dmodel = calloc(J, sizeof *dmodel);
    unsigned seed = 12345;
    double worst = 0, worst_x = 0;
    for (int pose = 0; pose < 4; pose++) {
        for (uint32_t j = 0; j < J; j++) {
            local[j] = sk->rest[j];
            if (pose > 0 && j < skin->joint_count) {
                seed = seed * 1103515245u + 12345u;
                float ang = ((float)((seed >> 8) & 0xffff) / 65535.0f - 0.5f) * 2.0f; /* -1..1 rad */
                local[j].r = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), ang);
            }
        }
        if (pose > 0) local[0].t = sk_vec3_make(0, 0.9f, 0.3f * pose); /* moved along the walk */
        for (uint32_t j = 0; j < J; j++) {
            dm4 l = dm_from_transform(&local[j]);
            dmodel[j] = sk->parents[j] < 0 ? l : dm_mul(&dmodel[sk->parents[j]], &l);
        }
        assert_int_equal(sk_local_to_model(sk, SK_POSE_OF(sk, local, NULL), NULL, model, J, &err), SK_OK);
        assert_int_equal(sk_skin_palette(skin, model, J, pal, skin->joint_count, &err), SK_OK);
        for (uint32_t i = 0; i < s->meshes[0].primitive_count; i++) {
            const sk_primitive *pr = &s->meshes[0].primitives[i];
            sk_skinned_mesh *sm = NULL;
            assert_int_equal(sk_skinned_mesh_create(pr, NULL, &sm, &err), SK_OK);
            float *out = calloc((size_t)pr->vertex_count * 3, sizeof(float));
            for (int lvl = SK_SIMD_SCALAR; lvl <= (int)sk_simd_best(); lvl++) {
                sk_skin_job job = {.mesh = sm, .method = SK_SKIN_LBS, .simd = (sk_simd)lvl, .palette = pal,
                                   .palette_count = skin->joint_count, .out_positions = out};
                assert_int_equal(sk_skin_run(&job, &err), SK_OK);
                for (uint32_t v = 0; v < pr->vertex_count; v++, checked++) {
                    const float *p = &pr->positions[3 * v];
                    double ref[3] = {0, 0, 0};
                    for (int k = 0; k < 4; k++) {
                        double w = pr->weights[4 * v + k];
                        if (w == 0) continue;
                        uint32_t jj = skin->joints[pr->joints[4 * v + k]];
                        dm4 ib;
                        for (int e = 0; e < 16; e++) ib.m[e] = skin->inverse_bind[pr->joints[4 * v + k]].m[e];
                        dm4 m = dm_mul(&dmodel[jj], &ib);
                        for (int c = 0; c < 3; c++)
                            ref[c] += w * (m.m[c] * p[0] + m.m[4 + c] * p[1] + m.m[8 + c] * p[2] + m.m[12 + c]);
                    }
                    double d = sqrt((ref[0] - out[3 * v]) * (ref[0] - out[3 * v]) + (ref[1] - out[3 * v + 1]) * (ref[1] - out[3 * v + 1]) +
                                    (ref[2] - out[3 * v + 2]) * (ref[2] - out[3 * v + 2]));
                    worst = fmax(worst, d);
                    worst_x = fmax(worst_x, fabs(out[3 * v] - p[0])); /* turns about X keep the depth */
                    if (pose == 0) assert_true(fabsf(out[3 * v + 1] - p[1]) < 1e-5f && fabsf(out[3 * v + 2] - p[2]) < 1e-5f);
                }
            }
            free(out);
            sk_skinned_mesh_destroy(sm);
        }
    }
    printf("sprite skinning: %u vertex positions checked (4 poses, SIMD levels scalar..%s): largest distance to the "
           "double reference %.2e m, largest change of depth x %.2e m\n",
           checked, sk_simd_name(sk_simd_best()), worst, worst_x);
    assert_true(checked > 1000);
    assert_true(worst < 2e-6);
    assert_true(worst_x < 1e-6);
    free(local), free(model), free(pal), free(dmodel);
    sk_asset_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_skeleton), cmocka_unit_test(test_mesh),
                                       cmocka_unit_test(test_skinning)};
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
