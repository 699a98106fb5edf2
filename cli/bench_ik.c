/* skelanim bench ik: the comparison experiment of Aristidou & Lasenby,
 * "FABRIK: A fast, iterative solver for the Inverse Kinematics problem"
 * (Graphical Models 73, 2011), Table 1 — one unconstrained chain of 10
 * joints, random reachable targets, 20 runs averaged, tolerance 1e-3 in
 * chain units (here: 9 bones of length 1, so 1e-3 is 1.1e-4 of the chain
 * length) — plus unreachable targets, and the two-bone solver's time per
 * call. One JSON line per measurement; docs/ik.md has the table.
 *
 *   skelanim bench ik [--runs N] [--repeat R] [--seed S]
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bik_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bik_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* xorshift64*: the targets of every run, from --seed. */
static double bik_rnd(uint64_t *rng) {
    *rng ^= *rng >> 12;
    *rng ^= *rng << 25;
    *rng ^= *rng >> 27;
    return (double)((*rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}
static sk_vec3 bik_dir(uint64_t *rng) {
    for (;;) {
        sk_vec3 v = sk_vec3_make((float)(2 * bik_rnd(rng) - 1), (float)(2 * bik_rnd(rng) - 1), (float)(2 * bik_rnd(rng) - 1));
        float l = sk_vec3_length(v);
        if (l > 0.1f && l <= 1.0f) return sk_vec3_scale(v, 1.0f / l);
    }
}

#define BIK_JOINTS 10
#define BIK_MAX_RUNS 1000

typedef struct bik_case {
    const char *name;       /* JSON "solver" */
    sk_ik_solver solver;
    float damping;
    double paper, paper_unreachable; /* Table 1 (as summarised in issue 5); 0 = none */
} bik_case;

static void emit(cJSON *o) {
    char *s = cJSON_PrintUnformatted(o);
    if (s) puts(s);
    cJSON_free(s);
    cJSON_Delete(o);
    fflush(stdout);
}

/* Table 1: every solver on the reachable, then the unreachable targets. */
static bool bik_table1(const sk_skeleton *skel, uint32_t runs, uint32_t repeat, const sk_vec3 *reach_t,
                       const sk_vec3 *far_t) {
    uint32_t joints[BIK_JOINTS];
    for (uint32_t i = 0; i < BIK_JOINTS; i++) joints[i] = i;
    sk_ik_chain chain = {skel, joints, BIK_JOINTS, NULL};
    sk_error err = {0};
    static const bik_case cases[] = {
        {"fabrik", SK_IK_FABRIK, 0, 15.5, 67.6},
        {"ccd", SK_IK_CCD, 0, 26.3, 390},
        {"jt", SK_IK_JACOBIAN_TRANSPOSE, 0, 1311, 6549},
        {"dls_fixed_1.1", SK_IK_DLS, 1.1f, 999, 0},
        {"dls_svd_adaptive", SK_IK_DLS, 0, 809, 0},
        {"svd_pinv", SK_IK_DLS, -1, 0, 0},
    };
    unsigned char scratch[16384];
    for (int unreachable = 0; unreachable < 2; unreachable++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            const bik_case *bc = &cases[c];
            sk_ik_options o = {0};
            o.solver = bc->solver;
            o.damping = bc->damping;
            o.tolerance = 1e-3f;
            o.max_iterations = 20000;
            o.stall_iterations = 20000; /* measure iterations to tolerance, not to a stall */
            double iters = 0, us_sum = 0, err_max = 0;
            uint32_t reached = 0;
            for (uint32_t r = 0; r < runs; r++) {
                sk_ik_target tg = {0};
                tg.position = unreachable ? far_t[r] : reach_t[r];
                sk_transform local[BIK_JOINTS];
                sk_ik_result res;
                sk_pose_rest(skel, SK_POSE_OF(skel, local, NULL), NULL);
                if (sk_ik_solve(&chain, &tg, &o, SK_POSE_OF((&chain)->skeleton, local, NULL), scratch, sizeof scratch, &res, &err) != SK_OK) {
                    fprintf(stderr, "skelanim: bench ik: %s\n", err.message);
                    return false;
                }
                iters += res.iterations;
                if (res.stop == SK_IK_STOP_TOLERANCE) reached++;
                if (res.residual > err_max) err_max = res.residual;
                /* time: median of R solves from the same start */
                uint32_t R = repeat ? repeat : (res.iterations > 2000 ? 3 : res.iterations > 200 ? 15 : 301);
                double samples[301];
                if (R > 301) R = 301;
                for (uint32_t k = 0; k < R; k++) {
                    sk_pose_rest(skel, SK_POSE_OF(skel, local, NULL), NULL);
                    double t0 = bik_now();
                    sk_ik_solve(&chain, &tg, &o, SK_POSE_OF((&chain)->skeleton, local, NULL), scratch, sizeof scratch, &res, NULL);
                    samples[k] = (bik_now() - t0) * 1e6;
                }
                qsort(samples, R, sizeof(double), bik_cmp);
                us_sum += samples[R / 2];
            }
            double paper = unreachable ? bc->paper_unreachable : bc->paper;
            cJSON *o2 = cJSON_CreateObject();
            cJSON_AddStringToObject(o2, "bench", "ik");
            cJSON_AddStringToObject(o2, "experiment", "fabrik_table1");
            cJSON_AddStringToObject(o2, "targets", unreachable ? "unreachable" : "reachable");
            cJSON_AddStringToObject(o2, "solver", bc->name);
            cJSON_AddNumberToObject(o2, "joints", BIK_JOINTS);
            cJSON_AddNumberToObject(o2, "runs", runs);
            cJSON_AddItemToObject(o2, "tolerance", cli_num(1e-3));
            cJSON_AddNumberToObject(o2, "reached", reached);
            cJSON_AddItemToObject(o2, "mean_iterations", cli_num(iters / runs));
            cJSON_AddItemToObject(o2, "us_per_solve", cli_num(us_sum / runs));
            cJSON_AddItemToObject(o2, "max_residual", cli_num(err_max));
            if (paper > 0) cJSON_AddItemToObject(o2, "paper_iterations", cli_num(paper));
            else cJSON_AddNullToObject(o2, "paper_iterations");
            emit(o2);
        }

    return true;
}

/* Two-bone: ns per call, the low-level call (model transforms in, two
 * local corrections out, like ozz's IKTwoBoneJob) and the chain API. */
static bool bik_two_bone(uint64_t *rng) {
    float lens[2] = {0.45f, 0.42f};
    int32_t p3[3] = {-1, 0, 1};
    sk_transform r3[3];
    for (int i = 0; i < 3; i++) r3[i] = sk_transform_identity();
    r3[1].t = sk_vec3_make(0, -lens[0], 0);
    r3[2].t = sk_vec3_make(0, -lens[1], 0);
    r3[1].r = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), 0.3f);
    sk_skeleton_desc d3 = {0};
    d3.joint_count = 3;
    d3.parents = p3;
    d3.rest = r3;
    sk_skeleton *s3 = NULL;
    sk_error err = {0};
    if (sk_skeleton_create(&d3, NULL, &s3, &err) != SK_OK) {
        fprintf(stderr, "skelanim: bench ik: %s\n", err.message);
        return false;
    }
    enum { NT = 1024 };
    sk_vec3 *tg3 = malloc(NT * sizeof *tg3);
    if (!tg3) {
        sk_skeleton_destroy(s3);
        return false;
    }
    for (int i = 0; i < NT; i++)
        tg3[i] = sk_vec3_add(sk_vec3_make(0, -0.5f, 0), sk_vec3_scale(bik_dir(rng), (float)(0.05 + 0.35 * bik_rnd(rng))));
    sk_transform local[3];
    sk_pose_rest(s3, SK_POSE_OF(s3, local, NULL), NULL);
    sk_mat4 m[3];
    sk_local_to_model(s3, SK_POSE_OF(s3, local, NULL), NULL, m, (s3)->joint_count, NULL);
    sk_transform mt[3];
    for (int i = 0; i < 3; i++) sk_mat4_decompose(&m[i], &mt[i]);
    sk_ik_options o = {0};
    o.solver = SK_IK_TWO_BONE;
    uint32_t j3[3] = {0, 1, 2};
    sk_ik_chain c3 = {s3, j3, 3, NULL};
    for (int api = 0; api < 2; api++) {
        double samples[15];
        volatile float sink = 0;
        const int calls = api ? 200000 : 1000000;
        for (int k = 0; k < 15; k++) {
            double t0 = bik_now();
            for (int i = 0; i < calls; i++) {
                sk_ik_target tg = {0};
                tg.position = tg3[i & (NT - 1)];
                if (!api) {
                    sk_quat a, b;
                    sk_ik_two_bone(&mt[0], &mt[1], &mt[2], &tg, &o, &a, &b, NULL);
                    sink += a.x + b.y;
                } else {
                    sk_pose_rest(s3, SK_POSE_OF(s3, local, NULL), NULL);
                    sk_ik_solve(&c3, &tg, &o, SK_POSE_OF((&c3)->skeleton, local, NULL), NULL, 0, NULL, NULL);
                    sink += local[0].r.x;
                }
            }
            samples[k] = (bik_now() - t0) * 1e9 / calls;
        }
        (void)sink;
        qsort(samples, 15, sizeof(double), bik_cmp);
        cJSON *o2 = cJSON_CreateObject();
        cJSON_AddStringToObject(o2, "bench", "ik");
        cJSON_AddStringToObject(o2, "experiment", api ? "two_bone_chain_api" : "two_bone");
        cJSON_AddStringToObject(o2, "solver", "twobone");
        cJSON_AddItemToObject(o2, "ns_per_call_median", cli_num(samples[7]));
        cJSON_AddItemToObject(o2, "ns_per_call_min", cli_num(samples[0]));
        if (!api) cJSON_AddItemToObject(o2, "ozz_ns_per_call", cli_num(124));
        emit(o2);
    }
    sk_skeleton_destroy(s3);
    free(tg3);
    return true;
}

typedef struct bik_args {
    uint32_t runs, repeat, seed;
} bik_args;

static int bench_ik(int argc, char **argv) {
    bik_args a = {0, 0, 0};
    int rc = cli_parse(&cli_cmd_bench_ik, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    uint32_t runs = a.runs;
    /* The chain: 10 joints, 9 unit bones along +Y, starting as a gentle arc
     * (each joint turned 10 degrees about Z and 5 about X: not a singular
     * straight line, the same start for every run and solver). */
    int32_t parents[BIK_JOINTS];
    sk_transform rest[BIK_JOINTS];
    for (int i = 0; i < BIK_JOINTS; i++) {
        parents[i] = i - 1;
        rest[i] = sk_transform_identity();
        if (i) rest[i].t = sk_vec3_make(0, 1, 0);
        sk_quat qz = sk_quat_from_axis_angle(sk_vec3_make(0, 0, 1), 10.0f * 3.14159265f / 180.0f);
        sk_quat qx = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), 5.0f * 3.14159265f / 180.0f);
        rest[i].r = sk_quat_mul(qz, qx);
    }
    sk_skeleton_desc desc = {0};
    desc.joint_count = BIK_JOINTS;
    desc.parents = parents;
    desc.rest = rest;
    sk_skeleton *skel = NULL;
    sk_error err = {0};
    if (sk_skeleton_create(&desc, NULL, &skel, &err) != SK_OK) {
        fprintf(stderr, "skelanim: bench ik: %s\n", err.message);
        return 1;
    }
    const float L = BIK_JOINTS - 1;
    sk_vec3 *reach_t = malloc(runs * sizeof *reach_t), *far_t = malloc(runs * sizeof *far_t);
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ a.seed;
    bool ok = reach_t && far_t;
    for (uint32_t r = 0; ok && r < runs; r++) reach_t[r] = sk_vec3_scale(bik_dir(&rng), (float)(0.1 + 0.85 * bik_rnd(&rng)) * L);
    for (uint32_t r = 0; ok && r < runs; r++) far_t[r] = sk_vec3_scale(bik_dir(&rng), (float)(1.1 + 0.9 * bik_rnd(&rng)) * L);
    ok = ok && bik_table1(skel, runs, a.repeat, reach_t, far_t) && bik_two_bone(&rng);
    free(reach_t);
    free(far_t);
    sk_skeleton_destroy(skel);
    return ok ? 0 : 1;
}

static const cli_opt bik_opts[] = {
    {"--runs", CLI_INT(bik_args, runs), .meta = "N", .min = 1, .max = BIK_MAX_RUNS, .dflt = "20",
     .help = "random targets of each kind; the paper: 20"},
    {"--repeat", CLI_INT(bik_args, repeat), .meta = "R", .min = 0, .max = 100000000, .dflt = "0",
     .help = "solves timed per target, the median kept, at most 301; 0: 3 to 301 by the solver's speed"},
    {"--seed", CLI_INT(bik_args, seed), .meta = "S", .min = 0, .max = UINT32_MAX, .dflt = "2011",
     .help = "the seed of the random targets"},
};
const cli_command cli_cmd_bench_ik = {
    .name = "bench ik",
    .run = bench_ik,
    .summary = "IK solvers on the FABRIK paper's experiment; the two-bone solver",
    .about = "The IK solvers on the FABRIK paper's experiment (Table 1: a 10-joint chain, random "
             "reachable and unreachable targets), and the two-bone solver's time per call; one "
             "JSON line per measurement (docs/ik.md).",
    .opts = bik_opts,
    .nopts = CLI_COUNT(bik_opts),
};
