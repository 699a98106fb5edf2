/* skelanim bench skin: CPU skinning in ns per vertex (positions + normals) for
 * 4 and 8 influences, LBS and DQS, scalar and SIMD, beside the bound set by
 * memory bandwidth for the bytes read and written (copy bandwidth measured in
 * the same run). One JSON line per measurement. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A synthetic skinned grid: nv vertices, `inf` influences each over `joints` joints. */
static sk_primitive make_prim(uint32_t nv, uint32_t inf, uint32_t joints, float **pos, float **nrm, uint16_t **jt,
                              float **wt) {
    *pos = malloc((size_t)nv * 3 * sizeof(float));
    *nrm = malloc((size_t)nv * 3 * sizeof(float));
    *jt = malloc((size_t)nv * inf * sizeof(uint16_t));
    *wt = malloc((size_t)nv * inf * sizeof(float));
    uint32_t seed = 12345;
    for (uint32_t v = 0; v < nv; v++) {
        for (int c = 0; c < 3; c++) {
            seed = seed * 1664525u + 1013904223u;
            (*pos)[v * 3 + c] = (float)(seed >> 8) / 16777216.0f;
        }
        (*nrm)[v * 3] = 0; (*nrm)[v * 3 + 1] = 1; (*nrm)[v * 3 + 2] = 0;
        float sum = 0;
        for (uint32_t i = 0; i < inf; i++) {
            seed = seed * 1664525u + 1013904223u;
            (*jt)[v * inf + i] = (uint16_t)((v / 64 + i * 3) % joints);
            float w = 1.0f + (float)(seed >> 24);
            (*wt)[v * inf + i] = w;
            sum += w;
        }
        for (uint32_t i = 0; i < inf; i++) (*wt)[v * inf + i] /= sum;
    }
    sk_primitive p;
    memset(&p, 0, sizeof p);
    p.mode = 4;
    p.vertex_count = nv;
    p.positions = *pos;
    p.normals = *nrm;
    p.influence_count = inf;
    p.joints = *jt;
    p.weights = *wt;
    p.material = -1;
    return p;
}

int bench_skin(int argc, char **argv) {
    uint32_t nv = 200000, joints = 64;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--vertices") && i + 1 < argc) {
            if (!cli_parse_uint("--vertices", argv[++i], 1, 100000000, &nv)) return 1;
        } else {
            fprintf(stderr, "usage: skelanim bench skin [--vertices N]\n");
            return 1;
        }
    }
    /* Copy bandwidth: memcpy of a buffer far larger than the caches. */
    size_t cb = (size_t)64 << 20;
    char *src = malloc(cb), *dst = malloc(cb);
    if (!src || !dst) return 1;
    memset(src, 1, cb);
    memset(dst, 2, cb);
    double best_bw = 0;
    for (int r = 0; r < 7; r++) {
        double t0 = cli_now();
        memcpy(dst, src, cb);
        double dt = cli_now() - t0;
        double bw = 2.0 * (double)cb / dt; /* bytes read + written per second */
        if (bw > best_bw) best_bw = bw;
    }
    free(src);
    free(dst);
    printf("{\"bench\":\"skin\",\"what\":\"copy bandwidth (read+write)\",\"gb_per_s\":%.2f}\n", best_bw / 1e9);

    sk_mat4 *pal = malloc(joints * sizeof *pal);
    sk_dual_quat *dq = malloc(joints * sizeof *dq);
    for (uint32_t j = 0; j < joints; j++) {
        sk_transform x = {{0.01f * (float)j, 0, 0}, sk_quat_from_axis_angle(sk_vec3_make(0.2f, 1, 0.1f), 0.05f * (float)j), {1, 1, 1}};
        pal[j] = sk_mat4_from_transform(&x);
    }
    sk_error err = {0};
    if (sk_skin_dual_quats(pal, joints, dq, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    float *out_p = malloc((size_t)nv * 3 * sizeof(float)), *out_n = malloc((size_t)nv * 3 * sizeof(float));
    for (uint32_t inf = 4; inf <= 8; inf += 4) {
        float *pos, *nrm, *wt;
        uint16_t *jt;
        sk_primitive prim = make_prim(nv, inf, joints, &pos, &nrm, &jt, &wt);
        sk_skinned_mesh *mesh = NULL;
        if (sk_skinned_mesh_create(&prim, NULL, &mesh, &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            return 1;
        }
        /* Bytes touched per vertex as stored in the file's layout: position and normal
         * in, joints (u16) and weights (f32) in, position and normal out. */
        double bytes = 12 + 12 + inf * (2 + 4) + 12 + 12;
        for (int method = SK_SKIN_LBS; method <= SK_SKIN_DQS; method++)
            for (int lvl = SK_SIMD_SCALAR; lvl <= SK_SIMD_AVX2; lvl++) {
                if (sk_simd_resolve((sk_simd)lvl) != (sk_simd)lvl) continue; /* CPU lacks it */
                sk_skin_job job = {.mesh = mesh, .method = (sk_skin_method)method, .simd = (sk_simd)lvl,
                                   .palette = pal, .dual_quats = dq, .palette_count = joints,
                                   .out_positions = out_p, .out_normals = out_n};
                double samples[9];
                for (int r = 0; r < 9; r++) {
                    double t0 = cli_now();
                    if (sk_skin_run(&job, &err) != SK_OK) {
                        fprintf(stderr, "skelanim: %s\n", err.message);
                        return 1;
                    }
                    samples[r] = (cli_now() - t0) * 1e9 / nv;
                }
                qsort(samples, 9, sizeof(double), cli_cmp_double);
                double bound = bytes / best_bw * 1e9;
                printf("{\"bench\":\"skin\",\"method\":\"%s\",\"influences\":%u,\"simd\":\"%s\",\"vertices\":%u,"
                       "\"outputs\":\"positions+normals\",\"ns_per_vertex_median\":%.3f,\"ns_per_vertex_min\":%.3f,"
                       "\"bytes_per_vertex\":%.0f,\"bandwidth_bound_ns_per_vertex\":%.3f}\n",
                       method == SK_SKIN_LBS ? "lbs" : "dqs", inf, sk_simd_name((sk_simd)lvl), nv, samples[4], samples[0],
                       bytes, bound);
                fflush(stdout);
            }
        sk_skinned_mesh_destroy(mesh);
        free(pos); free(nrm); free(jt); free(wt);
    }
    free(out_p); free(out_n); free(pal); free(dq);
    return 0;
}
