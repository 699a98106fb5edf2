/* skelanim bench: benchmarks with one JSON line per measurement. */
#include "cli.h"
#include "io/json_internal.h" /* bench json: the glTF reader's JSON layer */

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

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
        if (has_ext(path, ".glb") || has_ext(path, ".gltf") || has_ext(path, ".bvh")) add_file(l, path);
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
    sk_result r = has_ext(path, ".bvh") ? sk_bvh_load_file(path, NULL, &a, NULL) : sk_gltf_load_file(path, NULL, &a, NULL);
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

/* *faults_out: the fewest page faults one run took. */
static bool time_it(load_fn fn, const char *path, int min_runs, double min_seconds, double *med_ms, double *min_ms,
                    int *runs_out, long *faults_out) {
    double samples[256];
    int runs = 0;
    long fmin = -1;
    double start = cli_now();
    while (runs < 256 && (runs < min_runs || cli_now() - start < min_seconds)) {
        long f0 = page_faults();
        double t0 = cli_now();
        if (!fn(path)) return false;
        samples[runs++] = (cli_now() - t0) * 1e3;
        long f = page_faults() - f0;
        if (fmin < 0 || f < fmin) fmin = f;
    }
    *faults_out = fmin;
    qsort(samples, (size_t)runs, sizeof(double), cli_cmp_double);
    *med_ms = samples[runs / 2];
    *min_ms = samples[0];
    *runs_out = runs;
    return true;
}

static int bench_load(int argc, char **argv) {
    file_list files = {0};
    int min_runs = 5;
    double min_seconds = 0.3;
    /* --only skelanim|assimp: time one loader, so that each can be measured
     * in a process of its own (the two share the C library's heap otherwise,
     * and what one leaves free the other reuses without page faults) */
    bool run_ours = true, run_assimp = true;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            min_runs = 1;
            min_seconds = 0.0;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            i++;
            run_ours = !strcmp(argv[i], "skelanim");
            run_assimp = !strcmp(argv[i], "assimp");
            if (!run_ours && !run_assimp) {
                fprintf(stderr, "skelanim: bench load --only: \"%s\" is neither skelanim nor assimp\n", argv[i]);
                return 1;
            }
        } else collect(&files, argv[i], 0);
    }
    if (!files.n) {
        fprintf(stderr, "usage: skelanim bench load [--quick] [--only skelanim|assimp] PATH...   (files or folders with "
                        ".glb/.gltf/.bvh)\n");
        return 1;
    }
    qsort(files.v, files.n, sizeof(char *), cmp_str);
    int failures = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *p = files.v[i];
        struct stat st;
        long long bytes = stat(p, &st) == 0 ? (long long)st.st_size : -1;
        double med = 0, mn = 0;
        int runs = 0;
        long faults = 0;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "bench", "load");
        cJSON_AddStringToObject(o, "file", p);
        cJSON_AddNumberToObject(o, "bytes", (double)bytes);
        if (!run_ours) {
        } else if (time_it(load_ours, p, min_runs, min_seconds, &med, &mn, &runs, &faults)) {
            cJSON_AddNumberToObject(o, "runs", runs);
            cJSON_AddItemToObject(o, "median_ms", cli_num(med));
            cJSON_AddItemToObject(o, "min_ms", cli_num(mn));
            cJSON_AddNumberToObject(o, "min_page_faults", (double)faults);
        } else {
            cJSON_AddStringToObject(o, "error", "rejected by skelanim");
            failures++;
        }
#ifdef SK_HAVE_ASSIMP
        double amed = 0, amn = 0;
        int aruns = 0;
        long afaults = 0;
        if (!run_assimp) {
        } else if (time_it(load_assimp, p, min_runs, min_seconds, &amed, &amn, &aruns, &afaults)) {
            cJSON_AddItemToObject(o, "assimp_median_ms", cli_num(amed));
            cJSON_AddItemToObject(o, "assimp_min_ms", cli_num(amn));
            cJSON_AddNumberToObject(o, "assimp_min_page_faults", (double)afaults);
            if (med > 0) cJSON_AddItemToObject(o, "assimp_over_skelanim", cli_num(amed / med));
        } else {
            cJSON_AddStringToObject(o, "assimp_error", aiGetErrorString());
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
    file_list files = {0};
    int runs = 200;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) runs = 3;
        else collect(&files, argv[i], 0);
    }
    if (!files.n) {
        fprintf(stderr, "usage: skelanim bench json [--quick] PATH...   (files or folders with .glb/.gltf)\n");
        return 1;
    }
    qsort(files.v, files.n, sizeof(char *), cmp_str);
    int failures = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *p = files.v[i];
        if (has_ext(p, ".bvh")) {
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

int cmd_bench(int argc, char **argv) {
    /* One line per benchmark; others live in cli/bench_NAME.c (declared in cli.h). */
    static const struct { const char *name; int (*fn)(int, char **); } benches[] = {
        {"load", bench_load},
        {"json", bench_json},
        {"blend", bench_blend},
        {"ik", bench_ik},
        {"skin", bench_skin},
        {"crowd", bench_crowd},
        {"terrain", bench_terrain},
        {"locomotion", bench_locomotion},
        {"sample", bench_sample},
        {"mix", bench_mix},
        {"ltm", bench_ltm},
        {"palette", bench_palette},
        {"sample-compressed", cli_bench_sample_compressed},
    };
    if (argc >= 1)
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
            if (!strcmp(argv[0], benches[i].name)) return benches[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "usage: skelanim bench NAME [args]   (NAME:");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) fprintf(stderr, " %s", benches[i].name);
    fprintf(stderr, ")\n");
    return 1;
}
