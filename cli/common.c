/* skelanim command-line tool: the helpers the commands share (cli.h). */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The reader's warnings go to stderr, naming the file once. */
static void cli_warning(void *user, const char *message) {
    fprintf(stderr, "skelanim: %s: warning: %s\n", (const char *)user, message);
}

/* The BVH reader's warnings name the file themselves. */
static void cli_bvh_warning(void *user, const char *message) {
    (void)user;
    fprintf(stderr, "skelanim: warning: %s\n", message);
}

bool cli_is_bvh(const char *path) {
    size_t n = strlen(path);
    if (n < 4) return false;
    const char *e = path + n - 4;
    return e[0] == '.' && (e[1] | 32) == 'b' && (e[2] | 32) == 'v' && (e[3] | 32) == 'h';
}

bool cli_is_skc(const char *path) {
    size_t n = strlen(path);
    if (n < 4) return false;
    const char *e = path + n - 4;
    return e[0] == '.' && (e[1] | 32) == 's' && (e[2] | 32) == 'k' && (e[3] | 32) == 'c';
}

bool cli_load(const char *path, sk_asset **out) { return cli_load_scaled(path, 0.0, out); }

static bool has_ext_ci(const char *p, const char *ext) {
    size_t n = strlen(p), e = strlen(ext);
    if (n < e) return false;
    for (size_t i = 0; i < e; i++)
        if ((p[n - e + i] | 32) != (ext[i] | 32)) return false;
    return true;
}

/* glTF by content: the .glb magic, or JSON (first non-blank byte '{'). */
static bool looks_gltf(const char *path, bool *readable) {
    struct stat st;
    *readable = false;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false; /* the glTF reader says why */
    FILE *f = fopen(path, "rb");
    *readable = f != NULL;
    if (!f) return false;
    unsigned char b[64];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n >= 4 && !memcmp(b, "glTF", 4)) return true;
    size_t i = 0;
    if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf) i = 3; /* UTF-8 byte order mark */
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++;
    return i < n && b[i] == '{';
}

cli_format cli_file_format(const char *path) {
    if (!strcmp(path, SK_CLI_MANNEQUIN) || !strcmp(path, SK_CLI_PLANAR) || !strcmp(path, SK_CLI_SPRITE) ||
        !strcmp(path, SK_CLI_TRIPOD) || !strcmp(path, SK_CLI_QUADRUPED) || !strcmp(path, SK_CLI_HEXAPOD))
        return CLI_FORMAT_BUILTIN;
    if (cli_is_skc(path)) return CLI_FORMAT_SKC;
    if (cli_is_bvh(path)) return CLI_FORMAT_BVH;
    bool readable;
    if (looks_gltf(path, &readable) || !readable || has_ext_ci(path, ".gltf") || has_ext_ci(path, ".glb"))
        return CLI_FORMAT_GLTF;
    return CLI_FORMAT_IMPORT;
}

sk_result cli_load_file(const char *path, double scale, bool warnings, sk_asset **out, sk_error *err) {
    sk_gltf_options opt = {0};
    if (warnings) {
        opt.warning = cli_warning;
        opt.warning_user = (void *)(uintptr_t)path;
    }
    switch (cli_file_format(path)) {
    case CLI_FORMAT_BUILTIN:
        if (!strcmp(path, SK_CLI_MANNEQUIN)) return sk_mannequin_create(NULL, NULL, out, err);
        if (!strcmp(path, SK_CLI_TRIPOD)) return sk_creature_create(SK_CREATURE_TRIPOD, NULL, out, err);
        if (!strcmp(path, SK_CLI_QUADRUPED)) return sk_creature_create(SK_CREATURE_QUADRUPED, NULL, out, err);
        if (!strcmp(path, SK_CLI_HEXAPOD)) return sk_creature_create(SK_CREATURE_HEXAPOD, NULL, out, err);
        return !strcmp(path, SK_CLI_SPRITE) ? sk_sprite_create(NULL, out, err) : sk_planar_rig_create(NULL, out, err);
    case CLI_FORMAT_SKC: return sk_skc_load_file(path, NULL, NULL, out, NULL, err);
    case CLI_FORMAT_BVH: {
        sk_bvh_options bo = {0};
        bo.scale = scale;
        bo.blank = SK_BVH_BLANK_FILL; /* frames the capture did not record: `info` lists them */
        if (warnings) bo.warning = cli_bvh_warning;
        return sk_bvh_load_file(path, &bo, out, err);
    }
    case CLI_FORMAT_GLTF: return sk_gltf_load_file(path, &opt, out, err);
    case CLI_FORMAT_IMPORT: break;
    }
#ifdef SK_HAVE_IMPORT
    sk_import_options io = {0};
    if (warnings) {
        io.warning = cli_warning;
        io.warning_user = (void *)(uintptr_t)path;
    }
    const char *iso = getenv("SKELANIM_ISOLATE");
    if (iso && iso[0] && strcmp(iso, "0")) return cli_import_isolated(path, &io, out, err);
    return sk_import_file(path, &io, out, err);
#else
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash) && dot[1] && strlen(dot) < 16)
        return sk_error_set(err, SK_ERR_UNSUPPORTED,
                            "%s: this build reads no %s files (configure with -DSK_IMPORT=ON, with assimp "
                            "installed; skelanim info --formats lists what it reads)",
                            path, dot);
    return sk_error_set(err, SK_ERR_UNSUPPORTED,
                        "%s: neither glTF, .bvh nor .skc, and this build reads no other formats (configure with "
                        "-DSK_IMPORT=ON, with assimp installed; skelanim info --formats lists what it reads)",
                        path);
#endif
}

bool cli_readable_input(const char *path, bool listed) {
    if (has_ext_ci(path, ".glb") || has_ext_ci(path, ".gltf") || cli_is_bvh(path)) return true;
#ifdef SK_HAVE_IMPORT
    if (!listed) return sk_import_can_read(path);
    return has_ext_ci(path, ".fbx") || has_ext_ci(path, ".dae");
#else
    (void)listed;
    return false;
#endif
}

double cli_planted_share(const sk_leg_analysis *leg) {
    double share = leg->foot_lift - leg->foot_land;
    return share - floor(share);
}

bool cli_not_metres(const sk_asset *a, const sk_humanoid_map *map, const char *opt, char *why, size_t cap) {
    sk_humanoid_map m;
    if (!a || (!map && sk_humanoid_map_find(a->skeleton, NULL, &m, NULL) != SK_OK)) return false;
    double legs = sk_humanoid_leg_length(a->skeleton, NULL, map ? map : &m);
    if (!(legs > CLI_MAX_LEG_UNITS)) return false;
    snprintf(why, cap, "its legs are %.1f units long: the file is not in metres; give %s (metres per unit: %s)", legs, opt,
             legs < 30 ? "0.056444 for a CMU capture" : "0.01 for centimetres, 0.0254 for inches");
    return true;
}

bool cli_load_scaled(const char *path, double scale, sk_asset **out) {
    sk_error err = {0};
    cli_format fmt = cli_file_format(path);
    if (scale != 0.0 && fmt != CLI_FORMAT_BVH) {
        fprintf(stderr, "skelanim: %s: --scale applies to .bvh files only\n", path);
        return false;
    }
    sk_result r = cli_load_file(path, scale, true, out, &err);
    if (r != SK_OK) {
        /* The readers' messages name the file (once); the built-in characters' do not. */
        if (fmt == CLI_FORMAT_BUILTIN || !err.message[0])
            fprintf(stderr, "skelanim: %s: %s\n", path, err.message[0] ? err.message : sk_result_string(r));
        else fprintf(stderr, "skelanim: %s\n", err.message);
        return false;
    }
    return true;
}

cJSON *cli_num(double v) {
    if (!isfinite(v)) return cJSON_CreateNumber(v); /* found by cli_json_finite */
    char buf[48];
    snprintf(buf, sizeof buf, "%.9g", v);
    return cJSON_CreateRaw(buf);
}

static bool nonfinite_at(const cJSON *j, char *path, size_t len, size_t cap) {
    if (cJSON_IsNumber(j) && !isfinite(j->valuedouble)) return true;
    int i = 0;
    for (const cJSON *c = j->child; c; c = c->next, i++) {
        int n = c->string ? snprintf(path + len, cap - len, "/%s", c->string) : snprintf(path + len, cap - len, "/%d", i);
        size_t l2 = n < 0 ? len : (len + (size_t)n < cap ? len + (size_t)n : cap - 1);
        if (nonfinite_at(c, path, l2, cap)) return true;
        path[len] = 0;
    }
    return false;
}

bool cli_json_finite(const cJSON *root, const char *what) {
    char path[512] = "";
    if (!root || !nonfinite_at(root, path, 0, sizeof path)) return true;
    fprintf(stderr, "skelanim: %s: non-finite value at %s (not printed)\n", what, path[0] ? path : "/");
    return false;
}

void cli_put_json_line(cJSON *root) {
    char *s = cJSON_PrintUnformatted(root);
    if (s) puts(s);
    cJSON_free(s);
    cJSON_Delete(root);
    fflush(stdout);
}

cJSON *cli_nums(const float *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cli_num(v[i]));
    return a;
}

static bool parse_print(const char *opt, const char *s, char sep, int n, cli_num_kind kind, double min, double max,
                        double *out) {
    char why[160];
    bool ok = n == 1 ? cli_number(s, s ? strlen(s) : 0, kind, min, max, out, why, sizeof why)
                     : cli_numbers(s ? s : "", sep, n, kind, min, max, out, why, sizeof why);
    if (!ok) fprintf(stderr, "skelanim: %s: '%s' %s\n", opt, s ? s : "", why);
    return ok;
}

bool cli_parse_real(const char *opt, const char *s, double min, double max, double *out) {
    return parse_print(opt, s, 0, 1, CLI_NUM_REAL, min, max, out);
}

bool cli_parse_double(const char *opt, const char *s, double *out) {
    return parse_print(opt, s, 0, 1, CLI_NUM_REAL, -DBL_MAX, DBL_MAX, out);
}

bool cli_parse_doubles(const char *opt, const char *s, char sep, int n, double min, double max, double *out) {
    return parse_print(opt, s, sep, n, CLI_NUM_REAL, min, max, out);
}

bool cli_parse_u32s(const char *opt, const char *s, char sep, int n, uint32_t min, uint32_t max, uint32_t *out) {
    double v[8];
    if (n < 1 || n > 8 || !parse_print(opt, s, sep, n, CLI_NUM_UINT, min, max, v)) return false;
    for (int i = 0; i < n; i++) out[i] = (uint32_t)v[i];
    return true;
}

bool cli_parse_uint(const char *opt, const char *s, uint32_t min, uint32_t max, uint32_t *out) {
    return cli_parse_u32s(opt, s, 0, 1, min, max, out);
}

bool cli_parse_u32(const char *opt, const char *s, uint32_t *out) {
    return cli_parse_u32s(opt, s, 0, 1, 0, UINT32_MAX, out);
}

uint32_t cli_legs_find(const sk_skeleton *skel, sk_leg_desc *legs, uint32_t cap) {
    uint32_t n = sk_legs_find(skel, legs, cap);
    if (n >= 2 || cap < 2) return n;
    sk_humanoid_map m;
    uint32_t h = sk_humanoid_map_find(skel, NULL, &m, NULL) == SK_OK ? sk_legs_from_humanoid(&m, legs, cap) : 0;
    return h ? h : n; /* sk_legs_from_humanoid leaves legs as they were when it finds none */
}

int32_t cli_find_clip(const sk_asset *asset, const char *spec) {
    if (!strcmp(spec, "none")) return -1;
    int32_t i = sk_asset_find_clip(asset, spec);
    if (i >= 0) return i;
    double v;
    if (cli_number(spec, strlen(spec), CLI_NUM_UINT, 0.0, (double)asset->clip_count - 1.0, &v, NULL, 0))
        return (int32_t)v;
    fprintf(stderr, "skelanim: --clip %s: no such clip (the file has %u clip%s", spec, asset->clip_count,
            asset->clip_count == 1 ? "" : "s");
    for (uint32_t c = 0; c < asset->clip_count && c < 20; c++)
        fprintf(stderr, "%s%u '%s'", c ? ", " : ": ", c, sk_clip_name(asset->clips[c]));
    fprintf(stderr, ")\n");
    return -2;
}

uint32_t cli_scene_nodes(const sk_asset *asset, uint32_t *out_nodes) {
    const sk_skeleton *s = asset->skeleton;
    uint32_t n = asset->node_count, count = 0;
    if (asset->default_scene < 0 || (uint32_t)asset->default_scene >= asset->scene_count) {
        for (uint32_t i = 0; i < n; i++) out_nodes[count++] = i;
        return count;
    }
    /* Mark joints under the scene roots; parents come first, so one pass. */
    unsigned char *in = calloc(n ? n : 1, 1);
    if (!in) return 0;
    const sk_scene *sc = &asset->scenes[asset->default_scene];
    for (uint32_t r = 0; r < sc->root_count; r++) in[sc->roots[r]] = 1;
    for (uint32_t j = 0; j < n; j++)
        if (s->parents[j] >= 0 && in[s->parents[j]]) in[j] = 1;
    for (uint32_t node = 0; node < n; node++)
        if (in[asset->node_to_joint[node]]) out_nodes[count++] = node;
    free(in);
    return count;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cli_thread_cpu_now(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return cli_now();
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void *cli_alloc64(size_t bytes) {
    size_t n = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, n ? n : 64);
    if (p) memset(p, 0, n ? n : 64);
    return p;
}

bool cli_make_parent_dir(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return true;
    *slash = 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "skelanim: cannot create the folder %s: %s\n", dir, strerror(errno));
        return false;
    }
    return true;
}
