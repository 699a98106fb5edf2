/* skelanim view TRACE.jsonl: a recorded walk replayed in the window (view_trace.h). */
#include "view_trace.h"

#include "cli.h"
#include "loco_overlay.h"
#include "loco_view.h"
#include "skr.h"
#include "terrain_spec.h"
#include "trace_read.h"
#include "window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool view_trace_is(const char *file) {
    size_t n = strlen(file);
    return n > 6 && !strcmp(file + n - 6, ".jsonl");
}

static bool trace_load(const char *file, trace *tr) {
    FILE *f = fopen(file, "r");
    if (!f) {
        memset(tr, 0, sizeof *tr);
        fprintf(stderr, "skelanim: view: %s: cannot open\n", file);
        return false;
    }
    bool ok = trace_read(f, file, tr);
    fclose(f);
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
