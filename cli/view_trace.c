/* skelanim view TRACE.jsonl: a recorded walk replayed in the window (view_trace.h). */
#include "view_trace.h"

#include "cli.h"
#include "loco_overlay.h"
#include "loco_view.h"
#include "skr.h"
#include "terrain_spec.h"
#include "window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOINTS 4096u
#define MAX_LINES 2000000u

typedef struct trace {
    uint32_t n, cap, joints;
    double *t;
    sk_vec3 *root;
    float *pos;                   /* n x joints x 3 */
    loco_overlay_frame *ov;       /* n */
    bool *has_ov;
    int32_t *parents;             /* joints, or NULL */
    float path[2 * SK_PATH_MAX_POINTS];
    uint32_t path_n;
    char *terrain;                /* the spec, or NULL */
    /* feet (heel, ankle, toe) of each frame, for traces without parents */
    sk_vec3 *feet;                /* n x legs x 3 */
    uint32_t legs;
} trace;

bool view_trace_is(const char *file) {
    size_t n = strlen(file);
    return n > 6 && !strcmp(file + n - 6, ".jsonl");
}

static void trace_free(trace *tr) {
    free(tr->t), free(tr->root), free(tr->pos), free(tr->ov), free(tr->has_ov), free(tr->parents);
    free(tr->terrain), free(tr->feet);
    memset(tr, 0, sizeof *tr);
}

static bool vec3_of(const cJSON *a, sk_vec3 *v) {
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) return false;
    float x[3];
    for (int k = 0; k < 3; k++) {
        const cJSON *e = cJSON_GetArrayItem(a, k);
        if (!cJSON_IsNumber(e) || !(fabs(e->valuedouble) < 1e6)) return false;
        x[k] = (float)e->valuedouble;
    }
    *v = sk_vec3_make(x[0], x[1], x[2]);
    return true;
}

/* The first line's extras: parents, path, terrain (each optional). */
static bool header(trace *tr, const cJSON *line, const char *file) {
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(line, "parents");
    if (cJSON_IsArray(par)) {
        if ((uint32_t)cJSON_GetArraySize(par) != tr->joints || !(tr->parents = malloc(tr->joints * sizeof(int32_t)))) {
            fprintf(stderr, "skelanim: view: %s: line 1: \"parents\" does not match the %u joints\n", file, tr->joints);
            return false;
        }
        uint32_t j = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, par) {
            double v = cJSON_IsNumber(p) ? p->valuedouble : -2;
            if (!(v >= -1 && v < j) || v != floor(v)) {
                fprintf(stderr, "skelanim: view: %s: line 1: parents[%u] is not an earlier joint or -1\n", file, j);
                return false;
            }
            tr->parents[j++] = (int32_t)v;
        }
    }
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(line, "path"), *pt;
    cJSON_ArrayForEach(pt, path) {
        const cJSON *x = cJSON_GetArrayItem(pt, 0), *z = cJSON_GetArrayItem(pt, 1);
        if (tr->path_n == SK_PATH_MAX_POINTS || !cJSON_IsNumber(x) || !cJSON_IsNumber(z) ||
            !(fabs(x->valuedouble) < 1e5 && fabs(z->valuedouble) < 1e5))
            break;
        tr->path[2 * tr->path_n] = (float)x->valuedouble, tr->path[2 * tr->path_n + 1] = (float)z->valuedouble;
        tr->path_n++;
    }
    const cJSON *ter = cJSON_GetObjectItemCaseSensitive(line, "terrain");
    if (cJSON_IsString(ter) && ter->valuestring[0] && !(tr->terrain = strdup(ter->valuestring))) return false;
    return true;
}

static bool grow(trace *tr) {
    if (tr->n < tr->cap) return true;
    uint32_t cap = tr->cap ? 2 * tr->cap : 256;
    double *t = realloc(tr->t, cap * sizeof *t);
    if (t) tr->t = t;
    sk_vec3 *root = realloc(tr->root, cap * sizeof *root);
    if (root) tr->root = root;
    float *pos = realloc(tr->pos, (size_t)cap * tr->joints * 3 * sizeof *pos);
    if (pos) tr->pos = pos;
    loco_overlay_frame *ov = realloc(tr->ov, cap * sizeof *ov);
    if (ov) tr->ov = ov;
    bool *has = realloc(tr->has_ov, cap * sizeof *has);
    if (has) tr->has_ov = has;
    sk_vec3 *feet = realloc(tr->feet, (size_t)cap * (tr->legs ? tr->legs : 1) * 3 * sizeof *feet);
    if (feet) tr->feet = feet;
    if (!t || !root || !pos || !ov || !has || !feet) return false;
    tr->cap = cap;
    return true;
}

static bool add_line(trace *tr, const cJSON *line, uint32_t no, const char *file) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(line, "t"), *joints = cJSON_GetObjectItemCaseSensitive(line, "joints");
    const cJSON *feet = cJSON_GetObjectItemCaseSensitive(line, "feet");
    sk_vec3 root;
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || !vec3_of(cJSON_GetObjectItemCaseSensitive(line, "root"), &root) ||
        !cJSON_IsObject(joints) || !cJSON_IsArray(feet)) {
        fprintf(stderr, "skelanim: view: %s: line %u: not a locomote --trace line (\"t\", \"root\", \"feet\", \"joints\")\n",
                file, no);
        return false;
    }
    uint32_t J = (uint32_t)cJSON_GetArraySize(joints), legs = (uint32_t)cJSON_GetArraySize(feet);
    if (tr->n == 0) tr->joints = J, tr->legs = legs;
    if (J != tr->joints || J > MAX_JOINTS || legs != tr->legs || legs > LOCO_OVERLAY_MAX_LEGS) {
        fprintf(stderr, "skelanim: view: %s: line %u: %u joints and %u feet (the first line: %u and %u; at most %u and %u)\n",
                file, no, J, legs, tr->joints, tr->legs, MAX_JOINTS, LOCO_OVERLAY_MAX_LEGS);
        return false;
    }
    if (tr->n > 0 && !(t->valuedouble > tr->t[tr->n - 1])) {
        fprintf(stderr, "skelanim: view: %s: line %u: the time %g does not follow %g\n", file, no, t->valuedouble,
                tr->t[tr->n - 1]);
        return false;
    }
    if (!grow(tr)) {
        fprintf(stderr, "skelanim: view: %s: out of memory\n", file);
        return false;
    }
    float *p = tr->pos + (size_t)tr->n * J * 3;
    const cJSON *jv;
    cJSON_ArrayForEach(jv, joints) {
        sk_vec3 v;
        if (!vec3_of(jv, &v)) {
            fprintf(stderr, "skelanim: view: %s: line %u: joint \"%s\" is not [x, y, z]\n", file, no,
                    jv->string ? jv->string : "?");
            return false;
        }
        *p++ = v.x, *p++ = v.y, *p++ = v.z;
    }
    sk_vec3 *fv = tr->feet + (size_t)tr->n * legs * 3;
    const cJSON *ft;
    cJSON_ArrayForEach(ft, feet) {
        if (!vec3_of(cJSON_GetObjectItemCaseSensitive(ft, "heel"), fv) ||
            !vec3_of(cJSON_GetObjectItemCaseSensitive(ft, "ankle"), fv + 1) ||
            !vec3_of(cJSON_GetObjectItemCaseSensitive(ft, "toe"), fv + 2)) {
            fprintf(stderr, "skelanim: view: %s: line %u: a foot without \"heel\", \"ankle\" and \"toe\"\n", file, no);
            return false;
        }
        fv += 3;
    }
    tr->t[tr->n] = t->valuedouble;
    tr->root[tr->n] = root;
    tr->has_ov[tr->n] = loco_overlay_parse(line, &tr->ov[tr->n]);
    if (tr->n == 0 && !header(tr, line, file)) return false;
    tr->n++;
    return true;
}

static bool trace_load(const char *file, trace *tr) {
    memset(tr, 0, sizeof *tr);
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "skelanim: view: %s: cannot open\n", file);
        return false;
    }
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    uint32_t no = 0;
    bool ok = true;
    while (ok && (len = getline(&buf, &cap, f)) >= 0) {
        no++;
        if (strspn(buf, " \t\r\n") == (size_t)len) continue;
        if (no > MAX_LINES) {
            fprintf(stderr, "skelanim: view: %s: more than %u lines\n", file, MAX_LINES);
            ok = false;
            break;
        }
        cJSON *line = cJSON_ParseWithLength(buf, (size_t)len);
        if (!cJSON_IsObject(line)) {
            fprintf(stderr, "skelanim: view: %s: line %u: not a JSON object\n", file, no);
            ok = false;
        } else {
            ok = add_line(tr, line, no, file);
        }
        cJSON_Delete(line);
    }
    free(buf);
    fclose(f);
    if (ok && tr->n == 0) {
        fprintf(stderr, "skelanim: view: %s: no trace lines\n", file);
        ok = false;
    }
    if (!ok) trace_free(tr);
    return ok;
}

/* The bones (or, without parents, each foot's heel-ankle-toe) of frame k. */
static void draw_body(skr_overlay *gl, const skr_camera *cam, const trace *tr, uint32_t k, float *tmp) {
    uint32_t n = 0;
    const float *p = tr->pos + (size_t)k * tr->joints * 3;
    if (tr->parents) {
        for (uint32_t j = 0; j < tr->joints; j++) {
            if (tr->parents[j] < 0) continue;
            memcpy(tmp + 3 * n++, p + 3 * tr->parents[j], 3 * sizeof(float));
            memcpy(tmp + 3 * n++, p + 3 * j, 3 * sizeof(float));
        }
    }
    const sk_vec3 *fv = tr->feet + (size_t)k * tr->legs * 3;
    for (uint32_t l = 0; l < tr->legs; l++)
        for (int e = 0; e < 3; e++) {
            sk_vec3 a = fv[3 * l + e], b = fv[3 * l + (e + 1) % 3];
            tmp[3 * n] = a.x, tmp[3 * n + 1] = a.y, tmp[3 * n + 2] = a.z, n++;
            tmp[3 * n] = b.x, tmp[3 * n + 1] = b.y, tmp[3 * n + 2] = b.z, n++;
        }
    skr_overlay_style st = {{0.1f, 0.12f, 0.2f, 1.0f}, 4.0f, true};
    skr_overlay_lines(gl, cam, tmp, n, false, &st);
}

typedef struct replay {
    const view_trace_opts *o;
    trace tr;
    cli_terrain *terrain;
    skr_renderer *rn;
    skr_terrain *tmesh;
    skr_overlay *gl;
    loco_overlay *ov;
    float *tmp;
    float fc[2], fr;
} replay;

static bool loop(replay *R, cli_window *win, sk_error *err) {
    const view_trace_opts *o = R->o;
    const trace *tr = &R->tr;
    cli_orbit orbit = {{0, 0, 0}, -75.0f, 8.0f, 4.0f};
    float pan[3] = {0, 0, 0};
    double t = tr->t[0], speed = 1, last = cli_now();
    bool paused = false, overlay = o->overlay;
    const char *next_key = o->keys;
    uint32_t k = 0;
    for (uint32_t frame = 0; o->frames == 0 || frame < o->frames; frame++) {
        if (next_key && *next_key && frame > 0) {
            char buf[64];
            size_t len = strcspn(next_key, ",");
            snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), next_key);
            next_key += len + (next_key[len] == ',');
            if (!cli_window_push_key(win, buf, err)) return false;
        }
        cli_input in;
        if (!cli_window_poll(win, &in)) break;
        double now = cli_now(), dt = o->frames ? 1.0 / 30.0 : now - last;
        last = now;
        for (int i = 0; i < in.nkeys; i++) {
            int key = in.keys[i];
            if (key == ' ') paused = !paused;
            else if (key == 'o') overlay = !overlay;
            else if (key == CLI_KEY_UP || key == '+' || key == '=') speed *= 1.25;
            else if (key == CLI_KEY_DOWN || key == '-') speed /= 1.25;
            else if (key == 'r') orbit.az = -75.0f, orbit.el = 8.0f, orbit.dist = 4.0f, pan[0] = pan[1] = pan[2] = 0;
            else if (key == CLI_KEY_LEFT || key == CLI_KEY_RIGHT) {
                paused = true;
                k = key == CLI_KEY_LEFT ? (k ? k - 1 : tr->n - 1) : (k + 1) % tr->n;
                t = tr->t[k];
            }
        }
        if (!paused) {
            t += dt * speed;
            if (t > tr->t[tr->n - 1]) t = tr->t[0]; /* loop */
            while (k + 1 < tr->n && tr->t[k + 1] <= t) k++;
            while (k > 0 && tr->t[k] > t) k--;
        }
        float follow[3] = {tr->root[k].x, tr->root[k].y + 0.85f, tr->root[k].z};
        for (int q = 0; q < 3; q++) orbit.target[q] = follow[q] + pan[q];
        cli_orbit_apply(&orbit, &in);
        for (int q = 0; q < 3; q++) pan[q] = orbit.target[q] - follow[q];
        int fw, fh;
        cli_window_begin(win, &fw, &fh);
        skr_camera cam = {0};
        skr_camera_orbit(&cam, orbit.target, orbit.az, orbit.el, orbit.dist, fw, fh);
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, false, 0, 0, {0, 0}};
        skr_begin_frame(R->rn, &fd);
        skr_draw_terrain(R->rn, R->tmesh, R->fc, R->fr, fd.background);
        draw_body(R->gl, &cam, tr, k, R->tmp);
        bool drawn = overlay && tr->has_ov[k];
        if (drawn) {
            loco_overlay_trail_clear(R->ov);
            for (uint32_t i = 0; i <= k; i++) loco_overlay_trail_add(R->ov, tr->root[i]);
            loco_overlay_draw(R->ov, &cam, &tr->ov[k], loco_overlay_all, fw, fh);
        }
        if (o->print_state)
            printf("frame %u trace_frame %u t %.4f %s overlay %s\n", frame, k, tr->t[k], paused ? "paused" : "playing",
                   drawn ? "on" : overlay ? "on-no-data" : "off");
        if (o->screenshot && o->frames && frame + 1 == o->frames) {
            unsigned char *rgb = malloc((size_t)fw * (size_t)fh * 3);
            if (rgb) cli_window_read(win, rgb, fw, fh);
            bool ok = rgb && skr_write_image(o->screenshot, rgb, fw, fh, err) == SK_OK;
            free(rgb);
            if (!ok) return false;
            printf("wrote %s (%dx%d)\n", o->screenshot, fw, fh);
        }
        cli_window_swap(win);
        char title[512];
        snprintf(title, sizeof title, "skelanim view — %s — %.2f/%.2f s ×%.2f%s — debugging view %s (O)", o->file,
                 tr->t[k], tr->t[tr->n - 1], speed, paused ? " paused" : "", overlay ? "on" : "off");
        cli_window_title(win, title);
    }
    return true;
}

int view_trace_run(const view_trace_opts *o) {
    replay R;
    memset(&R, 0, sizeof R);
    R.o = o;
    if (!trace_load(o->file, &R.tr)) return 1;
    int rc = 1;
    sk_error err = {0};
    cli_window *win = NULL;
    if (R.tr.terrain && strcmp(R.tr.terrain, "flat") && cli_terrain_parse(R.tr.terrain, &R.terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: view: %s: the trace's terrain: %s\n", o->file, err.message);
        goto done;
    }
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < R.tr.n; i++) {
        const float p[3] = {R.tr.root[i].x, R.tr.root[i].y, R.tr.root[i].z};
        for (int q = 0; q < 3; q++) bmin[q] = fminf(bmin[q], p[q]), bmax[q] = fmaxf(bmax[q], p[q]);
    }
    bmin[1] -= 1.0f, bmax[1] += 2.0f;
    size_t lines = (size_t)R.tr.joints * 2 + (size_t)R.tr.legs * 6 + 2;
    if (!(R.tmp = malloc(lines * 3 * sizeof(float)))) goto done;
    char title[512];
    snprintf(title, sizeof title, "skelanim view — %s", o->file);
    if (!(win = cli_window_open(title, o->w, o->h, &err))) goto fail;
    if (skr_renderer_create(&R.rn, &err) != SK_OK || skr_overlay_create(&R.gl, &err) != SK_OK) goto fail;
    if (!(R.ov = loco_overlay_create(&err))) goto fail;
    if (loco_view_terrain(R.terrain, bmin, bmax, &R.tmesh, R.fc, &R.fr, &err) != SK_OK) goto fail;
    if (!loco_overlay_set_path(R.ov, R.tr.path, R.tr.path_n, R.terrain ? &R.terrain->terrain : NULL)) goto done;
    if (!loop(&R, win, &err)) goto fail;
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: view: %s\n", err.message[0] ? err.message : "failed");
done:
    skr_terrain_destroy(R.tmesh);
    loco_overlay_destroy(R.ov);
    skr_overlay_destroy(R.gl);
    skr_renderer_destroy(R.rn);
    cli_window_close(win);
    cli_terrain_destroy(R.terrain);
    free(R.tmp);
    trace_free(&R.tr);
    return rc;
}
