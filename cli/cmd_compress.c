/* skelanim compress IN... -o OUTDIR [--error-cm E] [--shell-cm S] [--scale M] [--fps N] [-j T] [--json]:
 * Each input (.bvh, .glb, .gltf; folders are searched, not recursively)
 * becomes OUTDIR/<stem>.skc: its skeleton and every clip, compressed
 * (offline/compress.h) or, when a clip cannot be (morph weights, STEP jumps),
 * kept as keys. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct clip_row {
    char name[128];
    bool compressed;
    char why[256];
    sk_compress_stats st;
    uint32_t in_frames;   /* the file's clip: its frames (largest key count) */
    double in_fps;        /* its own key rate, or its mean key rate when its keys are not uniform */
    bool in_uniform;      /* its keys are uniform (sk_clip_key_rate) */
    const char *rate_change; /* what became of the rate (rate_*) */
    double keys_bytes; /* a clip kept as keys: its record size */
    double seconds;     /* wall clock */
    double cpu_seconds; /* the compressing thread's CPU time */
} clip_row;

typedef struct job {
    const char *path, *stem;
    clip_row *rows;
    uint32_t nrows;
    bool ok;
    char error[1024];
    size_t skc_bytes;
} job;

typedef struct crun {
    job *jobs;
    size_t n, next, done;
    const char *outdir;
    sk_compress_options opt;
    double fps;
    bool progress;
    pthread_mutex_t mu;
} crun;



static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* What became of a clip's rate, in the table's notes and the JSON's "rate_change". */
static const char rate_none[] = "none", rate_fps[] = "downsampled to --fps",
                  rate_fps_above[] = "kept at its own rate (--fps is above it)",
                  rate_irregular[] = "uniform frames from irregular keys";

/* The file's clip: its frames (largest key count) and rate (its own, else
 * its mean key rate). */
static void clip_input(const sk_clip *c, uint32_t *frames, double *fps) {
    uint32_t n = 1;
    for (uint32_t k = 0; k < sk_clip_track_count(c); k++) {
        sk_track_info ti;
        if (sk_clip_track_info(c, k, &ti) && ti.key_count > n) n = ti.key_count;
    }
    double own = sk_clip_key_rate(c), dur = sk_clip_duration(c);
    *frames = n;
    *fps = own > 0.0 ? own : n > 1 && dur > 0.0 ? (double)(n - 1) / dur : 0.0;
}

static void job_compress(crun *R, job *J) {
    sk_asset *a = NULL;
    sk_error err = {0};
    /* assimp keeps its last error in one string per process: imports run one at a time. */
    bool imported = cli_file_format(J->path) == CLI_FORMAT_IMPORT;
    if (imported) pthread_mutex_lock(&R->mu);
    sk_result r = cli_load_file(J->path, 0.0, false, &a, &err);
    if (imported) pthread_mutex_unlock(&R->mu);
    if (r != SK_OK) {
        snprintf(J->error, sizeof J->error, "%.500s", err.message);
        return;
    }
    char why[256]; /* the error bound is in centimetres */
    if (R->opt.metres_per_unit == 0.0 && cli_file_format(J->path) == CLI_FORMAT_BVH &&
        cli_not_metres(a, NULL, "--scale", why, sizeof why)) {
        snprintf(J->error, sizeof J->error, "%s: %s", J->path, why);
        sk_asset_destroy(a);
        return;
    }
    uint32_t n = a->clip_count;
    J->rows = calloc(n ? n : 1, sizeof *J->rows);
    sk_clip **out = calloc(n ? n : 1, sizeof *out);
    bool ok = J->rows && out;
    for (uint32_t i = 0; ok && i < n; i++) {
        clip_row *row = &J->rows[i];
        const sk_clip *src = a->clips[i];
        snprintf(row->name, sizeof row->name, "%s", sk_clip_name(src));
        double t0 = cli_now(), c0 = cli_thread_cpu_now();
        sk_clip *res = NULL;
        clip_input(src, &row->in_frames, &row->in_fps);
        double own = sk_clip_key_rate(src);
        row->in_uniform = own > 0.0;
        row->rate_change = own > 0.0 ? rate_none : rate_irregular;
        /* --fps never raises a clip's rate: above its own key rate the clip is compressed as it is */
        if (R->fps > 0.0 && own > 0.0 && R->fps > own * (1.0 + 1e-3)) row->rate_change = rate_fps_above;
        else if (R->fps > 0.0) {
            row->rate_change = rate_fps;
            r = sk_clip_resample_limited(src, a->skeleton, R->fps, R->opt.max_work, NULL, &res, &err);
            if (r == SK_ERR_UNSUPPORTED) r = SK_OK, res = NULL; /* kept as it is */
            else if (r != SK_OK) {
                snprintf(J->error, sizeof J->error, "%.300s: clip %u: %.400s", J->path, i, err.message);
                ok = false;
                break;
            }
            if (res) src = res;
        }
        sk_clip *cc = NULL;
        r = sk_clip_compress(src, a->skeleton, &R->opt, NULL, &cc, &row->st, &err);
        row->seconds = cli_now() - t0;
        row->cpu_seconds = cli_thread_cpu_now() - c0;
        if (r == SK_OK && (double)row->st.compressed_bytes > row->st.raw_bytes) {
            /* larger compressed than its own keys (a curve that needs dense frames): kept as keys */
            snprintf(row->why, sizeof row->why,
                     "compressed it takes %zu bytes, more than its %.0f bytes of keys (its curve needs %u frames at %g "
                     "frames/s to stay within the error)",
                     row->st.compressed_bytes, row->st.raw_bytes, row->st.frames, row->st.sample_rate);
            sk_clip_destroy(cc);
            r = SK_ERR_UNSUPPORTED;
        }
        if (r == SK_OK) {
            row->compressed = true;
            out[i] = cc;
            sk_clip_destroy(res);
        } else if (r == SK_ERR_UNSUPPORTED) {
            if (!row->why[0]) snprintf(row->why, sizeof row->why, "%.250s", err.message);
            /* kept as keys: the resampled clip, or the file's own (moved out of the asset) */
            if (res) out[i] = res;
            else {
                out[i] = a->clips[i];
                ((sk_clip **)a->clips)[i] = NULL;
            }
        } else {
            sk_clip_destroy(res);
            snprintf(J->error, sizeof J->error, "%.300s: clip %u: %.400s", J->path, i, err.message);
            ok = false;
        }
    }
    if (ok) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.skc", R->outdir, J->stem);
        double mpu = R->opt.metres_per_unit > 0.0 ? R->opt.metres_per_unit : 1.0;
        void *data = NULL;
        size_t size = 0;
        r = sk_skc_write_memory(a->skeleton, out, n, mpu, NULL, &data, &size, &err);
        if (r == SK_OK) {
            r = sk_file_write(NULL, path, data, size, &err);
            free(data);
        }
        if (r != SK_OK) snprintf(J->error, sizeof J->error, "%.500s", err.message);
        else J->skc_bytes = size, J->ok = true;
        for (uint32_t i = 0; i < n; i++)
            if (!J->rows[i].compressed && out[i]) {
                size_t ks = 0;
                /* the keys record: what the file holds for it (its float keys) */
                for (uint32_t k = 0; k < sk_clip_track_count(out[i]); k++) {
                    sk_track_info ti;
                    sk_clip_track_info(out[i], k, &ti);
                    ks += 16 + 4 * (size_t)ti.key_count * (1 + ti.width * (ti.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u));
                }
                J->rows[i].keys_bytes = (double)ks + 8;
            }
    }
    J->nrows = ok ? n : 0;
    for (uint32_t i = 0; out && i < n; i++) sk_clip_destroy(out[i]);
    free(out);
    sk_asset_destroy(a);
}

static void *worker(void *arg) {
    crun *R = arg;
    for (;;) {
        pthread_mutex_lock(&R->mu);
        size_t i = R->next++;
        pthread_mutex_unlock(&R->mu);
        if (i >= R->n) return NULL;
        job_compress(R, &R->jobs[i]);
        pthread_mutex_lock(&R->mu);
        R->done++;
        if (R->progress) {
            fprintf(stderr, "\r[%zu/%zu] %-40.40s", R->done, R->n, R->jobs[i].stem);
            fflush(stderr);
        }
        pthread_mutex_unlock(&R->mu);
    }
}

static bool collect(char ***v, size_t *n, const char *p) {
    struct stat st;
    if (stat(p, &st) != 0) {
        fprintf(stderr, "skelanim: %s: %s\n", p, strerror(errno));
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(p);
        if (!d) {
            fprintf(stderr, "skelanim: %s: %s\n", p, strerror(errno));
            return false;
        }
        struct dirent *e;
        char **found = NULL;
        size_t nf = 0;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || !cli_readable_input(e->d_name, true)) continue;
            char **g = realloc(found, (nf + 1) * sizeof *found);
            if (!g) break;
            found = g;
            size_t l = strlen(p) + strlen(e->d_name) + 2;
            found[nf] = malloc(l);
            snprintf(found[nf++], l, "%s/%s", p, e->d_name);
        }
        closedir(d);
        qsort(found, nf, sizeof *found, cmp_str);
        for (size_t i = 0; i < nf; i++) {
            char **g = realloc(*v, (*n + 1) * sizeof **v);
            if (!g) return false;
            *v = g;
            (*v)[(*n)++] = found[i];
        }
        free(found);
        return true;
    }
    if (!cli_readable_input(p, false)) {
        fprintf(stderr, "skelanim: %s: not a .bvh, .glb or .gltf file%s\n", p,
#ifdef SK_HAVE_IMPORT
                " nor one the importer reads (info --formats)"
#else
                " (this build imports no other formats: -DSK_IMPORT=ON)"
#endif
        );
        return false;
    }
    char **g = realloc(*v, (*n + 1) * sizeof **v);
    if (!g) return false;
    *v = g;
    (*v)[(*n)++] = strdup(p);
    return true;
}

static char *stem_of(const char *p) {
    const char *b = strrchr(p, '/');
    b = b ? b + 1 : p;
    const char *dot = strrchr(b, '.');
    size_t l = dot && dot > b ? (size_t)(dot - b) : strlen(b);
    char *s = malloc(l + 1);
    memcpy(s, b, l);
    s[l] = 0;
    return s;
}

typedef struct compress_args {
    cli_list inputs;
    const char *outdir;
    double error_cm, shell_cm, scale, fps, max_work;
    uint32_t threads;
    bool json;
} compress_args;

static int cmd_compress(int argc, char **argv) {
    compress_args args;
    memset(&args, 0, sizeof args);
    int prc = cli_parse(&cli_cmd_compress, argc, argv, &args, NULL);
    if (prc != CLI_CONTINUE) return prc;
    char **paths = NULL;
    size_t np = 0;
    const char *outdir = args.outdir;
    bool json = args.json, ok = true;
    uint32_t threads = args.threads;
    crun R;
    memset(&R, 0, sizeof R);
    R.opt.error_cm = args.error_cm, R.opt.shell_cm = args.shell_cm, R.opt.metres_per_unit = args.scale;
    R.opt.max_work = args.max_work;
    R.fps = args.fps;
    for (uint32_t i = 0; i < args.inputs.n && ok; i++) ok = collect(&paths, &np, args.inputs.v[i]);
    if (ok && !np) {
        fprintf(stderr, "skelanim: compress: no .bvh, .glb or .gltf file in the folders given\n");
        ok = false;
    }
    char **stems = calloc(np ? np : 1, sizeof *stems);
    for (size_t i = 0; ok && i < np; i++) {
        stems[i] = stem_of(paths[i]);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(stems[k], stems[i])) {
                fprintf(stderr, "skelanim: compress: %s and %s would both write %s.skc\n", paths[k], paths[i], stems[i]);
                ok = false;
                break;
            }
    }
    if (ok) {
        struct stat st;
        if (stat(outdir, &st) != 0 && mkdir(outdir, 0777) != 0) {
            fprintf(stderr, "skelanim: %s: %s\n", outdir, strerror(errno));
            ok = false;
        } else if (stat(outdir, &st) == 0 && !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "skelanim: %s: not a folder\n", outdir);
            ok = false;
        }
    }
    int status = ok ? 0 : 1;
    if (ok) {
        R.jobs = calloc(np, sizeof *R.jobs);
        R.n = np;
        R.outdir = outdir;
        R.progress = !json && isatty(2);
        pthread_mutex_init(&R.mu, NULL);
        for (size_t i = 0; i < np; i++) R.jobs[i].path = paths[i], R.jobs[i].stem = stems[i];
        if (threads > np) threads = (uint32_t)np;
        pthread_t *th = calloc(threads, sizeof *th);
        uint32_t started = 0;
        for (uint32_t t = 1; t < threads; t++)
            if (pthread_create(&th[t], NULL, worker, &R) == 0) started++, th[started] = th[t];
        worker(&R);
        for (uint32_t t = 1; t <= started; t++) pthread_join(th[t], NULL);
        free(th);
        pthread_mutex_destroy(&R.mu);
        if (R.progress) fprintf(stderr, "\r%60s\r", "");
        double raw = 0, packed = 0, secs = 0, cpu = 0, mx = 0;
        uint32_t clips = 0, kept = 0;
        if (!json)
            printf("%-22s %-18s %11s %11s %12s %10s %7s %9s %9s %8s\n", "file", "clip", "fps", "frames", "raw B", "packed B",
                   "ratio", "max cm", "p99 cm", "ms");
        for (size_t i = 0; i < np; i++) {
            job *J = &R.jobs[i];
            if (!J->ok) {
                fprintf(stderr, "skelanim: %s\n", J->error);
                status = 1;
                free(J->rows); /* a failed job still owns its rows */
                continue;
            }
            for (uint32_t c = 0; c < J->nrows; c++) {
                clip_row *row = &J->rows[c];
                clips++;
                double cb = row->compressed ? (double)row->st.compressed_bytes : row->keys_bytes;
                if (row->compressed) {
                    raw += row->st.raw_bytes, packed += cb, secs += row->seconds, cpu += row->cpu_seconds;
                    if (row->st.max_error_cm > mx) mx = row->st.max_error_cm;
                } else kept++;
                if (json) {
                    cJSON *o = cJSON_CreateObject();
                    cJSON_AddStringToObject(o, "file", J->path);
                    cJSON_AddStringToObject(o, "skc", J->stem);
                    cJSON_AddStringToObject(o, "clip", row->name);
                    cJSON_AddBoolToObject(o, "compressed", row->compressed);
                    if (row->compressed) {
                        cJSON_AddNumberToObject(o, "frames", row->st.frames);
                        cJSON_AddItemToObject(o, "fps", cli_num(row->st.sample_rate));
                        cJSON_AddNumberToObject(o, "input_frames", row->in_frames);
                        cJSON_AddItemToObject(o, "input_fps", cli_num(row->in_fps));
                        cJSON_AddBoolToObject(o, "input_uniform", row->in_uniform);
                        cJSON_AddNumberToObject(o, "output_frames", row->st.frames);
                        cJSON_AddItemToObject(o, "output_fps", cli_num(row->st.sample_rate));
                        cJSON_AddStringToObject(o, "rate_change", row->rate_change);
                        cJSON_AddNumberToObject(o, "segment_frames", row->st.segment_len);
                        cJSON_AddNumberToObject(o, "raw_frames", row->st.input_frames);
                        cJSON_AddNumberToObject(o, "raw_bytes", row->st.raw_bytes);
                        cJSON_AddNumberToObject(o, "compressed_bytes", cb);
                        cJSON_AddItemToObject(o, "ratio", cli_num(row->st.raw_bytes / cb));
                        cJSON_AddItemToObject(o, "max_error_cm", cli_num(row->st.max_error_cm));
                        cJSON_AddItemToObject(o, "p99_error_cm", cli_num(row->st.p99_error_cm));
                        cJSON_AddNumberToObject(o, "animated_tracks", row->st.animated_tracks);
                        cJSON_AddNumberToObject(o, "constant_tracks", row->st.constant_tracks);
                        cJSON_AddNumberToObject(o, "step_tracks", row->st.step_tracks);
                    } else {
                        cJSON_AddNumberToObject(o, "input_frames", row->in_frames);
                        cJSON_AddItemToObject(o, "input_fps", cli_num(row->in_fps));
                        cJSON_AddBoolToObject(o, "input_uniform", row->in_uniform);
                        cJSON_AddStringToObject(o, "rate_change", row->rate_change);
                        cJSON_AddNumberToObject(o, "keys_bytes", cb);
                        cJSON_AddStringToObject(o, "reason", row->why);
                    }
                    cJSON_AddItemToObject(o, "seconds", cli_num(row->seconds));
                    cJSON_AddItemToObject(o, "cpu_seconds", cli_num(row->cpu_seconds));
                    if (!cli_json_finite(o, "compress")) status = 1;
                    else {
                        char *s = cJSON_PrintUnformatted(o);
                        if (s) puts(s);
                        cJSON_free(s);
                    }
                    cJSON_Delete(o);
                } else if (row->compressed) {
                    /* the rate and frame count, input -> stored where they differ */
                    char fps[32], frames[32], note[160] = "";
                    if (fabs(row->st.sample_rate - row->in_fps) > 1e-3 * row->in_fps)
                        snprintf(fps, sizeof fps, "%.4g->%.4g", row->in_fps, row->st.sample_rate);
                    else snprintf(fps, sizeof fps, "%.4g", row->st.sample_rate);
                    if (row->st.frames != row->in_frames) snprintf(frames, sizeof frames, "%u->%u", row->in_frames, row->st.frames);
                    else snprintf(frames, sizeof frames, "%u", row->st.frames);
                    if (row->rate_change != rate_none && row->rate_change != rate_fps)
                        snprintf(note, sizeof note, "  (%s)", row->rate_change);
                    if (row->st.segment_len != 16)
                        snprintf(note + strlen(note), sizeof note - strlen(note), "  (segments of %u frames)", row->st.segment_len);
                    if (row->st.step_tracks)
                        snprintf(note + strlen(note), sizeof note - strlen(note), "  (%u STEP track%s kept as keys)",
                                 row->st.step_tracks, row->st.step_tracks > 1 ? "s" : "");
                    printf("%-22.22s %-18.18s %11s %11s %12.0f %10.0f %7.2f %9.5f %9.5f %8.1f%s\n", J->stem, row->name, fps,
                           frames, row->st.raw_bytes, cb, row->st.raw_bytes / cb, row->st.max_error_cm, row->st.p99_error_cm,
                           1e3 * row->seconds, note);
                } else {
                    printf("%-22.22s %-18.18s   kept as keys (%10.0f B): %s\n", J->stem, row->name, cb, row->why);
                }
            }
            free(J->rows);
        }
        if (!json) {
            if (packed > 0)
                printf("total: %u clips (%u kept as keys), compressed %.0f -> %.0f bytes, ratio %.2f:1, max error %.5f cm, "
                       "%.1f MB/s of raw data (%.2f s on %u thread%s; %.1f MB/s of thread CPU time, %.2f s)\n",
                       clips, kept, raw, packed, raw / packed, mx, secs > 0 ? raw / secs / 1e6 : 0.0, secs, threads,
                       threads == 1 ? "" : "s", cpu > 0 ? raw / cpu / 1e6 : 0.0, cpu);
            else if (clips) /* nothing compressed: no ratio to give */
                printf("total: %u clips, all kept as keys: nothing compressed\n", clips);
            else printf("total: no clip compressed\n");
        }
        free(R.jobs);
    }
    for (size_t i = 0; i < np; i++) free(paths[i]), free(stems[i]);
    free(paths);
    free(stems);
    return status;
}

static const cli_opt compress_opts[] = {
    {"--out-dir", CLI_STRING(compress_args, outdir), .short_name = 'o', .flags = CLI_REQUIRED, .meta = "OUTDIR",
     .help = "the folder of the .skc files, made when missing"},
    {"--error-cm", CLI_REAL(compress_args, error_cm), .meta = "E", .min = 1e-6, .max = 1e4, .dflt = "0.01",
     .help = "the largest error, cm, on virtual vertices --shell-cm from each joint"},
    {"--shell-cm", CLI_REAL(compress_args, shell_cm), .meta = "S", .min = 1e-6, .max = 1e6, .dflt = "3",
     .help = "the distance of the virtual vertices from their joint, cm"},
    {"--scale", CLI_REAL(compress_args, scale), .meta = "M", .min = CLI_SCALE_MIN, .max = CLI_SCALE_MAX,
     .help = "metres per unit of the inputs, 0.056444 for CMU .bvh",
     .dflt_text = "1; a .bvh whose legs measure more than 5 units is refused without it"},
    {"--fps", CLI_REAL(compress_args, fps), .meta = "N", .min = 0.01, .max = 1e4,
     .help = "resample each clip at N frames per second first (never above its own key rate)", .dflt_text = "as it is"},
    {"--max-work", CLI_REAL(compress_args, max_work), .meta = "N", .min = 1, .max = 1e12,
     .help = "the most frame-tracks (frames x tracks) one clip may be sampled at",
     .dflt_text = "64 per value the clip stores, at least 2^20"},
    {"--jobs", CLI_INT(compress_args, threads), .short_name = 'j', .meta = "THREADS", .min = 1, .max = 256, .dflt = "1",
     .help = "files compressed at once"},
    {"--json", CLI_FLAG(compress_args, json), .help = "one JSON line per clip instead of the table"},
};
static const cli_arg compress_arg_list[] = {
    {"IN", CLI_ARGS(compress_args, inputs, CLI_REQUIRED),
     .help = ".bvh, .glb or .gltf files, files of a format the build imports (FBX, COLLADA, ...: info --formats), "
             "or folders of them (not searched recursively; in folders: .bvh, .glb, .gltf, .fbx, .dae)"},
};
static const char *const compress_notes[] = {
    "Each input becomes OUTDIR/STEM.skc: its skeleton and every clip, compressed, or kept as keys\n"
    "when a clip cannot be (morph weights, STEP jumps). Prints a table of sizes and errors per clip\n"
    "and a total line.\n",
    NULL,
};
const cli_command cli_cmd_compress = {
    .name = "compress",
    .run = cmd_compress,
    .summary = "compress every clip of .bvh/.glb/.gltf (and imported) files into .skc files",
    .opts = compress_opts,
    .nopts = CLI_COUNT(compress_opts),
    .args = compress_arg_list,
    .nargs = CLI_COUNT(compress_arg_list),
    .notes = compress_notes,
};
