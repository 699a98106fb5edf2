/* skelanim bench: benchmarks with one JSON line per measurement. */
#include "cli.h"
#include "io/json_internal.h" /* bench json: the glTF reader's JSON layer */

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef SK_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

typedef struct file_list { char **v; size_t n, cap; } file_list;

static bool has_ext(const char *p, const char *ext) {
    size_t n = strlen(p), e = strlen(ext);
    return n >= e && !strcasecmp(p + n - e, ext);
}

static void add_file(file_list *l, const char *p) {
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 32;
        char **v = realloc(l->v, nc * sizeof *v);
        if (!v) return;
        l->v = v;
        l->cap = nc;
    }
    l->v[l->n++] = strdup(p);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void collect(file_list *l, const char *path, int depth) {
    struct stat st;
    if (stat(path, &st) != 0) return;
    if (S_ISREG(st.st_mode)) {
        if (cli_readable_input(path, depth > 0)) add_file(l, path);
        return;
    }
    if (!S_ISDIR(st.st_mode) || depth > 8) return;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        collect(l, sub, depth + 1);
    }
    closedir(d);
}

/* Runs fn until at least min_runs runs and min_seconds; returns the median (and min) in ms. */
typedef bool (*load_fn)(const char *path);

static bool load_ours(const char *path) {
    sk_asset *a = NULL;
    sk_result r = cli_load_file(path, 0.0, false, &a, NULL);
    sk_asset_destroy(a);
    return r == SK_OK;
}

#ifdef SK_HAVE_ASSIMP
static bool load_assimp(const char *path) {
    /* Import only, no post-processing: the closest to what our loader does. */
    const struct aiScene *s = aiImportFile(path, 0);
    if (!s) return false;
    aiReleaseImport(s);
    return true;
}
#endif

/* Page faults of this process so far (minor and major): fresh memory costs
 * a fault per page touched, which is much of a load's time on some machines. */
static long page_faults(void) {
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : 0;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* faults_out[0]: the fewest page faults one run took; [1]: the median. */
static bool time_it(load_fn fn, const char *path, int min_runs, double min_seconds, double *med_ms, double *min_ms,
                    int *runs_out, long *faults_out) {
    double samples[256];
    long fsamples[256];
    int runs = 0;
    long fmin = -1;
    double start = cli_now();
    while (runs < 256 && (runs < min_runs || cli_now() - start < min_seconds)) {
        long f0 = page_faults();
        double t0 = cli_now();
        if (!fn(path)) return false;
        samples[runs] = (cli_now() - t0) * 1e3;
        long f = page_faults() - f0;
        fsamples[runs++] = f;
        if (fmin < 0 || f < fmin) fmin = f;
    }
    faults_out[0] = fmin;
    qsort(fsamples, (size_t)runs, sizeof(long), cmp_long);
    faults_out[1] = fsamples[runs / 2];
    qsort(samples, (size_t)runs, sizeof(double), cli_cmp_double);
    *med_ms = samples[runs / 2];
    *min_ms = samples[0];
    *runs_out = runs;
    return true;
}

/* One loader's figures on one file. */
typedef struct load_figures {
    bool ok;
    bool fresh; /* timed in a process of its own */
    int runs;
    double med_ms, min_ms;
    long faults[2];
} load_figures;

/* time_it in a child process (fresh = true) or in this one. A load's cost
 * depends on the heap the process has: glibc gives the top of its heap back
 * to the system when a free leaves it above the trim threshold (twice the
 * largest block it has had to map), and a load that then needs that memory
 * again faults on fresh pages, which cost 1.5-4 us each on some virtual
 * machines. Which loads are hit depends on every allocation before them,
 * the other loader's too: in one process, the same file's figures changed
 * with the files and the loader timed before it. So each loader times each
 * file in a process of its own, forked from this one before any load. */
static load_figures time_fresh(load_fn fn, const char *path, int min_runs, double min_seconds, bool fresh) {
    load_figures f;
    memset(&f, 0, sizeof f);
    int fd[2];
    pid_t pid = -1;
    if (fresh && pipe(fd) == 0) {
        fflush(NULL);
        pid = fork();
        if (pid < 0) close(fd[0]), close(fd[1]);
    }
    if (pid <= 0) { /* the child, or no child */
        f.ok = time_it(fn, path, min_runs, min_seconds, &f.med_ms, &f.min_ms, &f.runs, f.faults);
        if (pid < 0) return f; /* (no pipe or no fork: timed here, and said so) */
        f.fresh = true;
        close(fd[0]);
        ssize_t w = write(fd[1], &f, sizeof f);
        _exit(w == (ssize_t)sizeof f ? 0 : 1);
    }
    close(fd[1]);
    size_t got = 0;
    while (got < sizeof f) {
        ssize_t r = read(fd[0], (char *)&f + got, sizeof f - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof f || !WIFEXITED(status) || WEXITSTATUS(status) != 0) memset(&f, 0, sizeof f);
    return f;
}

typedef struct bench_files_args {
    cli_list paths;
    int only; /* index into "skelanim|assimp", when given */
    bool quick, same_process;
} bench_files_args;

/* The files of the PATH arguments (folders searched); false (after saying so) when there is none. */
static bool gather_files(const char *bench, const cli_list *paths, file_list *files) {
    for (uint32_t i = 0; i < paths->n; i++) collect(files, paths->v[i], 0);
    if (files->n) return true;
    fprintf(stderr, "skelanim: bench %s: no file it reads in the paths given (.glb, .gltf, .bvh; with the importer what it reads, .fbx and .dae in folders)\n", bench);
    return false;
}

static int bench_load(int argc, char **argv) {
    bench_files_args a;
    memset(&a, 0, sizeof a);
    cli_seen seen;
    int rc = cli_parse(&cli_cmd_bench_load, argc, argv, &a, &seen);
    if (rc != CLI_CONTINUE) return rc;
    file_list files = {0};
    int min_runs = a.quick ? 1 : 5;
    double min_seconds = a.quick ? 0.0 : 0.3;
    /* --only skelanim|assimp: time one loader. --same-process: every loader
     * and file in this process (time_fresh says why that is not the default) */
    bool only = cli_given(&seen, "--only");
    bool run_ours = !only || a.only == 0, run_assimp = !only || a.only == 1, fresh = !a.same_process;
    (void)run_assimp; /* (without assimp: only ours) */
    if (!gather_files("load", &a.paths, &files)) return 1;
    qsort(files.v, files.n, sizeof(char *), cmp_str);
    int failures = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *p = files.v[i];
        struct stat st;
        long long bytes = stat(p, &st) == 0 ? (long long)st.st_size : -1;
        load_figures ours = {0};
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "bench", "load");
        cJSON_AddStringToObject(o, "file", p);
        cJSON_AddNumberToObject(o, "bytes", (double)bytes);
        if (run_ours) ours = time_fresh(load_ours, p, min_runs, min_seconds, fresh);
        if (run_ours) cJSON_AddBoolToObject(o, "fresh_process", ours.fresh);
        if (!run_ours) {
        } else if (ours.ok) {
            cJSON_AddNumberToObject(o, "runs", ours.runs);
            cJSON_AddItemToObject(o, "median_ms", cli_num(ours.med_ms));
            cJSON_AddItemToObject(o, "min_ms", cli_num(ours.min_ms));
            cJSON_AddNumberToObject(o, "min_page_faults", (double)ours.faults[0]);
            cJSON_AddNumberToObject(o, "median_page_faults", (double)ours.faults[1]);
        } else {
            cJSON_AddStringToObject(o, "error", "rejected by skelanim");
            failures++;
        }
#ifdef SK_HAVE_ASSIMP
        if (run_assimp) {
            load_figures as = time_fresh(load_assimp, p, min_runs, min_seconds, fresh);
            cJSON_AddBoolToObject(o, "assimp_fresh_process", as.fresh);
            if (as.ok) {
                cJSON_AddItemToObject(o, "assimp_median_ms", cli_num(as.med_ms));
                cJSON_AddItemToObject(o, "assimp_min_ms", cli_num(as.min_ms));
                cJSON_AddNumberToObject(o, "assimp_min_page_faults", (double)as.faults[0]);
                cJSON_AddNumberToObject(o, "assimp_median_page_faults", (double)as.faults[1]);
                if (ours.ok && ours.med_ms > 0)
                    cJSON_AddItemToObject(o, "assimp_over_skelanim", cli_num(as.med_ms / ours.med_ms));
            } else {
                /* (a child's message stays in the child: load once more here for it) */
                const struct aiScene *sc = aiImportFile(p, 0);
                cJSON_AddStringToObject(o, "assimp_error", sc ? "the timing process failed" : aiGetErrorString());
                if (sc) aiReleaseImport(sc);
            }
        }
#endif
        cli_put_json_line(o);
        free(files.v[i]);
    }
    free(files.v);
    return failures ? 1 : 0;
}

/* bench json: the glTF reader's JSON layer (sk_json_read: check, then the
 * values and strings on the default allocator, then freed) against cJSON's
 * parse and release, on the JSON of each .gltf/.glb (a .glb's JSON chunk). */
typedef struct json_text {
    const char *text;
    size_t len;
} json_text;

static double json_min_ms(const json_text *t, int which, int runs) {
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        double t0 = cli_now();
        if (which == 0) {
            sk_json_check(t->text, t->len, NULL, NULL);
        } else if (which == 1) {
            sk_json_doc doc;
            if (sk_json_read(t->text, t->len, NULL, &doc, NULL, NULL) == SK_OK) sk_json_doc_free(&doc);
        } else {
            cJSON_Delete(cJSON_ParseWithLength(t->text, t->len));
        }
        double ms = (cli_now() - t0) * 1e3;
        if (ms < best) best = ms;
    }
    return best;
}

static int bench_json(int argc, char **argv) {
    bench_files_args a;
    memset(&a, 0, sizeof a);
    int rc = cli_parse(&cli_cmd_bench_json, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    file_list files = {0};
    int runs = a.quick ? 3 : 200;
    if (!gather_files("json", &a.paths, &files)) return 1;
    qsort(files.v, files.n, sizeof(char *), cmp_str);
    int failures = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *p = files.v[i];
        if (!has_ext(p, ".glb") && !has_ext(p, ".gltf")) { /* BVH and imported files have no glTF JSON */
            free(files.v[i]);
            continue;
        }
        size_t size = 0;
        unsigned char *data = NULL;
        FILE *f = fopen(p, "rb");
        if (f && fseek(f, 0, SEEK_END) == 0) {
            long n = ftell(f);
            if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n)) != NULL &&
                fread(data, 1, (size_t)n, f) == (size_t)n)
                size = (size_t)n;
        }
        if (f) fclose(f);
        json_text t = {(const char *)data, size};
        /* a .glb: its first chunk, the JSON (GLB header 12 bytes, chunk header 8) */
        if (size >= 20 && !memcmp(data, "glTF", 4) && !memcmp(data + 16, "JSON", 4)) {
            size_t n = (size_t)data[12] | (size_t)data[13] << 8 | (size_t)data[14] << 16 | (size_t)data[15] << 24;
            t.text = (const char *)data + 20;
            t.len = n <= size - 20 ? n : 0;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "bench", "json");
        cJSON_AddStringToObject(o, "file", p);
        cJSON_AddNumberToObject(o, "json_bytes", (double)t.len);
        sk_json_doc doc;
        size_t at = 0;
        const char *what = "";
        sk_result r = size ? sk_json_read(t.text, t.len, NULL, &doc, &at, &what) : SK_ERR_IO;
        if (r == SK_OK) {
            cJSON_AddNumberToObject(o, "values", doc.count);
            sk_json_doc_free(&doc);
            double check = json_min_ms(&t, 0, runs), read = json_min_ms(&t, 1, runs), cj = json_min_ms(&t, 2, runs);
            cJSON_AddItemToObject(o, "check_min_ms", cli_num(check));
            cJSON_AddItemToObject(o, "read_min_ms", cli_num(read));
            cJSON_AddItemToObject(o, "cjson_min_ms", cli_num(cj));
            cJSON_AddItemToObject(o, "cjson_over_read", cli_num(read > 0 ? cj / read : 0));
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "%s near byte %zu: %s", sk_result_string(r), at, size ? what : "cannot read");
            cJSON_AddStringToObject(o, "error", msg);
            failures++;
        }
        cli_put_json_line(o);
        free(data);
        free(files.v[i]);
    }
    free(files.v);
    return failures ? 1 : 0;
}

static const cli_opt load_opts[] = {
    {"--quick", CLI_FLAG(bench_files_args, quick), .help = "one run per file and loader (a check, not a measure)"},
    {"--only", CLI_CHOICE(bench_files_args, only, "skelanim|assimp"), .help = "time one loader", .dflt_text = "both"},
    {"--same-process", CLI_FLAG(bench_files_args, same_process),
     .help = "time every loader and file in this process; a load's cost depends on the heap the loads "
             "before it left", .dflt_text = "each in a process of its own, forked before any load"},
};
static const cli_arg paths_arg[] = {
    {"PATH", CLI_ARGS(bench_files_args, paths, CLI_REQUIRED), .help = ".glb, .gltf or .bvh files, files of a format the build imports (info --formats), or "
             "folders of them (searched for .glb, .gltf, .bvh, and with the importer .fbx and .dae)"},
};
const cli_command cli_cmd_bench_load = {
    .name = "bench load",
    .run = bench_load,
    .summary = "time loading .glb/.gltf/.bvh files, and what the build imports (beside assimp when built with it)",
    .about = "Times loading each file (folders are searched), beside assimp when the tool is "
             "built with it: one JSON line per file with the median and fastest load and the page "
             "faults.",
    .opts = load_opts,
    .nopts = CLI_COUNT(load_opts),
    .args = paths_arg,
    .nargs = CLI_COUNT(paths_arg),
};

static const cli_opt json_opts[] = {
    {"--quick", CLI_FLAG(bench_files_args, quick), .help = "3 runs per file instead of 200"},
};
const cli_command cli_cmd_bench_json = {
    .name = "bench json",
    .run = bench_json,
    .summary = "the glTF reader's JSON layer beside cJSON on each file's JSON",
    .about = "The glTF reader's JSON layer (check, then read) beside cJSON's parse on the JSON of "
             "each .gltf or .glb: one JSON line per file.",
    .opts = json_opts,
    .nopts = CLI_COUNT(json_opts),
    .args = paths_arg,
    .nargs = CLI_COUNT(paths_arg),
};
