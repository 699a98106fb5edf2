/* skelanim bench skin [--vertices N] [FILE ...]: CPU skinning in ns per
 * vertex (positions + normals), LBS and DQS, every SIMD level the CPU has:
 *  - a synthetic grid of N (200k) vertices with 4 and 8 influences each,
 *    beside the bound set by memory bandwidth for the bytes read and written
 *    (copy bandwidth measured in the same run);
 *  - the built-in mannequin and every file given (.glb / .gltf): all their
 *    skinned primitives with normals, with how many vertices have 1, 2, 3, 4
 *    and 5-8 non-zero influences; each sample repeats the meshes until about
 *    N vertices are skinned.
 * One JSON line per measurement; min and median of 9 samples. */
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

/* Times one LBS or DQS pass over every mesh (positions + normals) at one
 * level: min and median of 9 samples, each repeating the pass `reps` times. */
static bool time_meshes(sk_skinned_mesh *const *meshes, uint32_t mesh_count, sk_skin_method method, sk_simd lvl,
                        const sk_mat4 *pal, const sk_dual_quat *dq, uint32_t joints, float *out_p, float *out_n,
                        uint32_t reps, double total_vertices, double *med, double *min) {
    sk_error err = {0};
    double samples[9];
    for (int r = 0; r < 9; r++) {
        double t0 = cli_now();
        for (uint32_t k = 0; k < reps; k++)
            for (uint32_t i = 0; i < mesh_count; i++) {
                sk_skin_job job = {.mesh = meshes[i], .method = method, .simd = lvl, .palette = pal,
                                   .dual_quats = dq, .palette_count = joints, .out_positions = out_p,
                                   .out_normals = out_n};
                if (sk_skin_run(&job, &err) != SK_OK) {
                    fprintf(stderr, "skelanim: %s\n", err.message);
                    return false;
                }
            }
        samples[r] = (cli_now() - t0) * 1e9 / (total_vertices * reps);
    }
    qsort(samples, 9, sizeof(double), cli_cmp_double);
    *med = samples[4];
    *min = samples[0];
    return true;
}

/* The skinned primitives (with normals) of an asset, timed at every level. */
static int bench_asset(const char *name, const sk_asset *asset, const sk_mat4 *pal, const sk_dual_quat *dq,
                       uint32_t joints, double sample_vertices) {
    enum { MAX_MESHES = 256 };
    sk_skinned_mesh *meshes[MAX_MESHES];
    uint32_t mesh_count = 0, max_nv = 0, groups[5] = {0};
    double total = 0;
    sk_error err = {0};
    int rc = 0;
    for (uint32_t i = 0; i < asset->mesh_count; i++)
        for (uint32_t p = 0; p < asset->meshes[i].primitive_count; p++) {
            const sk_primitive *prim = &asset->meshes[i].primitives[p];
            if (!prim->influence_count || !prim->normals || !prim->vertex_count || mesh_count == MAX_MESHES)
                continue;
            sk_skinned_mesh *m = NULL;
            if (sk_skinned_mesh_create(prim, NULL, &m, &err) != SK_OK) {
                fprintf(stderr, "skelanim: %s: %s\n", name, err.message);
                rc = 1;
                goto done;
            }
            if (sk_skinned_mesh_palette_size(m) > joints) {
                fprintf(stderr, "skelanim: %s: a mesh uses %u joints, the bench palette has %u\n", name,
                        sk_skinned_mesh_palette_size(m), joints);
                sk_skinned_mesh_destroy(m);
                rc = 1;
                goto done;
            }
            meshes[mesh_count++] = m;
            uint32_t nv = sk_skinned_mesh_vertex_count(m);
            for (uint32_t v = 0; v < nv; v++) {
                uint16_t jj[8];
                float ww[8];
                uint32_t c = sk_skinned_mesh_vertex_influences(m, v, jj, ww);
                groups[c <= 4 ? (c ? c - 1 : 0) : 4]++;
            }
            total += nv;
            if (nv > max_nv) max_nv = nv;
        }
    if (!mesh_count) {
        fprintf(stderr, "skelanim: %s: no skinned primitive with normals\n", name);
        return 1;
    }
    {
        float *out_p = malloc((size_t)max_nv * 3 * sizeof(float)), *out_n = malloc((size_t)max_nv * 3 * sizeof(float));
        uint32_t reps = (uint32_t)(sample_vertices / total) + 1; /* a sample of about N vertices */
        for (int method = SK_SKIN_LBS; method <= SK_SKIN_DQS && out_p && out_n; method++)
            for (int lvl = SK_SIMD_SCALAR; lvl <= (int)sk_simd_best(); lvl++) {
                double med, min;
                if (!time_meshes(meshes, mesh_count, (sk_skin_method)method, (sk_simd)lvl, pal, dq, joints, out_p,
                                 out_n, reps, total, &med, &min)) {
                    rc = 1;
                    break;
                }
                printf("{\"bench\":\"skin\",\"mesh\":\"%s\",\"method\":\"%s\",\"simd\":\"%s\",\"vertices\":%.0f,"
                       "\"primitives\":%u,\"vertices_by_influences\":{\"1\":%u,\"2\":%u,\"3\":%u,\"4\":%u,\"5-8\":%u},"
                       "\"outputs\":\"positions+normals\",\"ns_per_vertex_median\":%.3f,\"ns_per_vertex_min\":%.3f}\n",
                       name, method == SK_SKIN_LBS ? "lbs" : "dqs", sk_simd_name((sk_simd)lvl), total, mesh_count,
                       groups[0], groups[1], groups[2], groups[3], groups[4], med, min);
                fflush(stdout);
            }
        free(out_p);
        free(out_n);
    }
done:
    for (uint32_t i = 0; i < mesh_count; i++) sk_skinned_mesh_destroy(meshes[i]);
    return rc;
}

typedef struct bs_args {
    uint32_t vertices;
    cli_list files;
} bs_args;

static int bench_skin(int argc, char **argv) {
    bs_args args = {0, {NULL, 0}};
    int prc = cli_parse(&cli_cmd_bench_skin, argc, argv, &args, NULL);
    if (prc != CLI_CONTINUE) return prc;
    uint32_t nv = args.vertices, joints = 64;
    const char *const *files = args.files.v;
    int file_count = (int)args.files.n;
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
            for (int lvl = SK_SIMD_SCALAR; lvl <= (int)sk_simd_best(); lvl++) {
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

    /* The mannequin and the files given, with a rigid palette of 256 joints. */
    const uint32_t aj = 256;
    sk_mat4 *apal = malloc(aj * sizeof *apal);
    sk_dual_quat *adq = malloc(aj * sizeof *adq);
    if (!apal || !adq) return 1;
    for (uint32_t j = 0; j < aj; j++) {
        sk_transform x = {{0.01f * (float)j, 0.02f, -0.01f * (float)j},
                          sk_quat_from_axis_angle(sk_vec3_make(0.2f, 1, 0.1f), 0.05f * (float)j), {1, 1, 1}};
        apal[j] = sk_mat4_from_transform(&x);
    }
    int rc = sk_skin_dual_quats(apal, aj, adq, &err) == SK_OK ? 0 : 1;
    sk_asset *man = NULL;
    if (!rc && sk_mannequin_create(NULL, NULL, &man, &err) == SK_OK) {
        rc = bench_asset("mannequin", man, apal, adq, aj, nv);
        sk_asset_destroy(man);
    } else {
        fprintf(stderr, "skelanim: %s\n", err.message);
        rc = 1;
    }
    for (int f = 0; f < file_count && !rc; f++) {
        sk_asset *asset = NULL;
        if (!cli_load(files[f], &asset)) {
            rc = 1;
            break;
        }
        const char *base = strrchr(files[f], '/');
        rc = bench_asset(base ? base + 1 : files[f], asset, apal, adq, aj, nv);
        sk_asset_destroy(asset);
    }
    free(apal);
    free(adq);
    return rc;
}

static const cli_opt bs_opts[] = {
    {"--vertices", CLI_INT(bs_args, vertices), .meta = "N", .min = 1, .max = 100000000, .dflt = "200000",
     .help = "vertices of the synthetic grid; each sample of a file skins about N vertices"},
};
static const cli_arg bs_arg_list[] = {
    {"FILE", CLI_ARGS(bs_args, files, 0), .max_count = 16, .help = ".glb or .gltf files with skinned meshes"},
};
const cli_command cli_cmd_bench_skin = {
    .name = "bench skin",
    .run = bench_skin,
    .summary = "CPU skinning in ns per vertex: a grid, the mannequin, each FILE",
    .about = "CPU skinning (positions and normals; LBS and DQS at every SIMD level the CPU has) "
             "in ns per vertex: a synthetic grid beside the bound set by memory bandwidth, the "
             "mannequin and each FILE; one JSON line per measurement.",
    .opts = bs_opts,
    .nopts = CLI_COUNT(bs_opts),
    .args = bs_arg_list,
    .nargs = CLI_COUNT(bs_arg_list),
};
