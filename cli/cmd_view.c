/* skelanim view: an SDL2 window with the renderer of `skelanim render`
 * (OpenGL 3.3 core through libepoxy, GPU skinning with the palette in a
 * texture buffer), an orbit camera, clip switching, pause/scrub/speed, a
 * CPU/GPU skinning toggle (LBS or DQS on the CPU), a skeleton overlay and the
 * frame time in the title. The window itself (SDL2, events, GL context) is
 * cli/window.c, shared with `skelanim demo --window`.
 *
 * --frames N [--screenshot F.png] renders N frames and exits (for tests under
 * Xvfb and for scripted screenshots). */
#include "cli.h"
#include "skr.h"
#include "window.h"
#include "retarget_run.h"
#include "panel.h"
#include "view_trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct view_args {
    const char *file, *clip, *screenshot, *keys, *beside;
    uint32_t size[2], frames;
    double time;
    int panel;
    bool cpu, dqs, skeleton, print_state, overlay;
} view_args;

/* --beside TARGET: the target character playing every clip of the source
 * retargeted (contacts restored), drawn beside it at the same clip time. */
typedef struct view_beside {
    sk_asset *asset;
    cli_retarget rt;
    sk_clip **clips;     /* one per source clip */
    uint32_t clip_count;
    skr_model *model;
    sk_transform *local;
    sk_mat4 *world, *pal;
    float *weights, *cpu_v;
    float offset[3];     /* where it stands, relative to its own model space */
} view_beside;

/* The viewer's state: the character, its buffers, what the keys change. */
typedef struct viewer {
    const sk_asset *asset;
    skr_model *model;
    sk_transform *local;
    sk_mat4 *world, *pal;
    float *weights, *cpu_v;
    int32_t clip;
    double t, speed;
    bool paused, cpu, dqs, skeleton, morph;
    cli_orbit orbit;
    float bmin[3], bmax[3];
    int w, h;
    view_beside *beside; /* NULL without --beside */
    panel *pn;           /* the on-screen panel (panel.h) */
    const char **clip_names;
} viewer;

static void clip_bounds(const sk_asset *a, const skr_model *m, int32_t clip, sk_transform *local, sk_mat4 *world,
                        float *weights, sk_mat4 *pal, float bmin[3], float bmax[3]) {
    const sk_skeleton *s = a->skeleton;
    for (int k = 0; k < 3; k++) bmin[k] = INFINITY, bmax[k] = -INFINITY;
    float d = clip >= 0 ? sk_clip_duration(a->clips[clip]) : 0;
    for (int i = 0; i < 12; i++) {
        if (clip >= 0) sk_clip_sample(a->clips[clip], s, d * (float)i / 12.0f, SK_LOOP_REPEAT, SK_POSE_OF(s, local, weights), NULL);
        else sk_pose_rest(s, SK_POSE_OF(s, local, weights), NULL);
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
        skr_model_palette(m, world, pal);
        skr_model_bounds(m, pal, weights, bmin, bmax);
        if (clip < 0) break;
    }
    if (!(bmin[0] <= bmax[0]))
        for (int k = 0; k < 3; k++) bmin[k] = -1, bmax[k] = 1;
}

static void reset_orbit(cli_orbit *o, const float bmin[3], const float bmax[3], int w, int h) {
    skr_camera c = {0};
    skr_camera_frame(&c, bmin, bmax, 35.0f, 12.0f, w, h);
    memcpy(o->target, c.target, sizeof o->target);
    o->az = 35.0f, o->el = 12.0f;
    float dx = c.eye[0] - c.target[0], dy = c.eye[1] - c.target[1], dz = c.eye[2] - c.target[2];
    o->dist = sqrtf(dx * dx + dy * dy + dz * dz);
}

/* Every --keys name is known (checked before anything opens). */
static bool keys_known(const char *keys) {
    char buf[64];
    for (const char *k = keys; *k;) {
        size_t len = strcspn(k, ",");
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), k);
        if (len == 0 || len > 63 || !cli_window_key_known(buf)) {
            fprintf(stderr, "skelanim: view: --keys: unknown key name '%s'\n", buf);
            return false;
        }
        k += len + (k[len] == ',');
    }
    return true;
}

/* The bounds the camera frames: the pose at --time (as `skelanim render
 * --time` does), else the whole clip. */
static void first_bounds(viewer *v, bool at_time) {
    const sk_skeleton *s = v->asset->skeleton;
    if (!at_time) {
        clip_bounds(v->asset, v->model, v->clip, v->local, v->world, v->weights, v->pal, v->bmin, v->bmax);
        return;
    }
    if (v->clip >= 0)
        sk_clip_sample(v->asset->clips[v->clip], s, (float)v->t, SK_LOOP_REPEAT, SK_POSE_OF(s, v->local, v->weights), NULL);
    else sk_pose_rest(s, SK_POSE_OF(s, v->local, v->weights), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, v->local, NULL), NULL, v->world, s->joint_count, NULL);
    skr_model_palette(v->model, v->world, v->pal);
    for (int k = 0; k < 3; k++) v->bmin[k] = INFINITY, v->bmax[k] = -INFINITY;
    skr_model_bounds(v->model, v->pal, v->weights, v->bmin, v->bmax);
    if (!(v->bmin[0] <= v->bmax[0]))
        for (int k = 0; k < 3; k++) v->bmin[k] = -1, v->bmax[k] = 1;
}

static void press(viewer *v, int key) {
    const sk_asset *asset = v->asset;
    float dur = v->clip >= 0 ? sk_clip_duration(asset->clips[v->clip]) : 0;
    if (key == ' ') v->paused = !v->paused;
    else if (key == CLI_KEY_LEFT || key == CLI_KEY_RIGHT) {
        v->paused = true;
        v->t += key == CLI_KEY_LEFT ? -1.0 / 30.0 : 1.0 / 30.0;
        if (dur > 0) v->t = fmod(fmod(v->t, dur) + dur, dur);
    } else if (key == CLI_KEY_UP || key == '+' || key == '=') v->speed *= 1.25;
    else if (key == CLI_KEY_DOWN || key == '-') v->speed /= 1.25;
    else if (key == '0') v->speed = 1;
    else if (key == 'c') v->cpu = v->morph ? true : !v->cpu;
    else if (key == 'd') v->dqs = !v->dqs;
    else if (key == 'k') v->skeleton = !v->skeleton;
    else if (key == 'r') reset_orbit(&v->orbit, v->bmin, v->bmax, v->w, v->h);
    else if ((key == '\t' || key == CLI_KEY_BACKTAB || (key >= '1' && key <= '9')) && asset->clip_count) {
        int32_t nc = (int32_t)asset->clip_count;
        if (key == '\t') v->clip = (v->clip + 1) % nc;
        else if (key == CLI_KEY_BACKTAB) v->clip = (v->clip + nc - 1) % nc;
        else if (key - '1' < nc) v->clip = key - '1';
        v->t = 0;
        clip_bounds(asset, v->model, v->clip, v->local, v->world, v->weights, v->pal, v->bmin, v->bmax);
    }
}

/* The target at clip time t of source clip c (its palette moved to where it stands). */
static void beside_pose(view_beside *b, uint32_t c, double t, bool cpu) {
    const sk_skeleton *s = b->asset->skeleton;
    sk_clip_sample(b->clips[c], s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, b->local, b->weights), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, b->local, NULL), NULL, b->world, s->joint_count, NULL);
    skr_model_palette(b->model, b->world, b->pal);
    for (uint32_t k = 0; k < skr_model_palette_size(b->model); k++)
        b->pal[k].m[12] += b->offset[0], b->pal[k].m[13] += b->offset[1], b->pal[k].m[14] += b->offset[2];
    if (cpu) skr_model_skin_cpu(b->model, b->pal, b->weights, SK_SKIN_LBS, SK_SIMD_AUTO, b->cpu_v, NULL);
}

/* Loads the target, bakes every source clip onto it, and places it beside
 * the source: across the first clip's direction of travel (X when it stays
 * in place), by the sum of both characters' widths at rest. */
static bool beside_open(viewer *v, const char *path, view_beside *b, sk_error *err) {
    const sk_asset *src = v->asset;
    if (!cli_load(path, &b->asset)) return false;
    if (cli_retarget_open(src, b->asset, NULL, &b->rt, err) != SK_OK) {
        fprintf(stderr, "skelanim: view: --beside %s: %s\n", path, err->message);
        err->message[0] = 0;
        return false;
    }
    b->clips = calloc(src->clip_count + 1, sizeof *b->clips);
    if (!b->clips) return false;
    for (; b->clip_count < src->clip_count; b->clip_count++)
        if (cli_retarget_bake(&b->rt, src->clips[b->clip_count], true, &b->clips[b->clip_count], NULL, err) != SK_OK) {
            fprintf(stderr, "skelanim: view: --beside %s: clip '%s': %s\n", path, sk_clip_name(src->clips[b->clip_count]),
                    err->message);
            err->message[0] = 0;
            return false;
        }
    if (skr_model_create(b->asset, 0, &b->model, err) != SK_OK) return false;
    const sk_skeleton *s = b->asset->skeleton;
    uint32_t n = s->joint_count, np = skr_model_palette_size(b->model), nv = skr_model_vertex_count(b->model);
    b->local = calloc(n ? n : 1, sizeof *b->local);
    b->world = calloc(n ? n : 1, sizeof *b->world);
    b->pal = calloc(np ? np : 1, sizeof *b->pal);
    b->weights = calloc(s->weight_total + 1, sizeof *b->weights);
    b->cpu_v = calloc((size_t)nv * 6 + 1, sizeof *b->cpu_v);
    if (!b->local || !b->world || !b->pal || !b->weights || !b->cpu_v) return false;
    /* Widths at rest (joints and mesh), and the direction of travel of the source's root. */
    float lo[2][3], hi[2][3];
    for (int c = 0; c < 2; c++) {
        const sk_skeleton *sk = c ? s : src->skeleton;
        sk_transform *local = c ? b->local : v->local;
        sk_mat4 *world = c ? b->world : v->world;
        sk_pose_rest(sk, SK_POSE_OF(sk, local, NULL), NULL);
        sk_local_to_model(sk, SK_POSE_OF(sk, local, NULL), NULL, world, sk->joint_count, NULL);
        for (int k = 0; k < 3; k++) lo[c][k] = INFINITY, hi[c][k] = -INFINITY;
        for (uint32_t j = 0; j < sk->joint_count; j++)
            for (int k = 0; k < 3; k++) lo[c][k] = fminf(lo[c][k], world[j].m[12 + k]), hi[c][k] = fmaxf(hi[c][k], world[j].m[12 + k]);
        skr_model *m = c ? b->model : v->model;
        sk_mat4 *pal = c ? b->pal : v->pal;
        skr_model_palette(m, world, pal);
        skr_model_bounds(m, pal, NULL, lo[c], hi[c]);
    }
    float side[2] = {1.0f, 0.0f};
    if (src->clip_count && src->skeleton->joint_count) {
        const sk_skeleton *sk = src->skeleton;
        float p[2][3];
        for (int e = 0; e < 2; e++) {
            sk_clip_sample(src->clips[0], sk, e ? sk_clip_duration(src->clips[0]) : 0.0, SK_LOOP_CLAMP,
                           SK_POSE_OF(sk, v->local, NULL), NULL);
            sk_local_to_model(sk, SK_POSE_OF(sk, v->local, NULL), NULL, v->world, sk->joint_count, NULL);
            memcpy(p[e], &v->world[0].m[12], sizeof p[e]);
        }
        float dx = p[1][0] - p[0][0], dz = p[1][2] - p[0][2], len = sqrtf(dx * dx + dz * dz);
        if (len > 0.1f * (hi[0][1] - lo[0][1])) side[0] = -dz / len, side[1] = dx / len;
    }
    float width = 0;
    for (int c = 0; c < 2; c++) width += fabsf(side[0]) * (hi[c][0] - lo[c][0]) + fabsf(side[1]) * (hi[c][2] - lo[c][2]);
    b->offset[0] = side[0] * width, b->offset[1] = lo[0][1] - lo[1][1], b->offset[2] = side[1] * width;
    v->beside = b;
    return true;
}

static void beside_close(view_beside *b) {
    for (uint32_t i = 0; i < b->clip_count; i++) sk_clip_destroy(b->clips[i]);
    free(b->clips);
    skr_model_destroy(b->model);
    free(b->local), free(b->world), free(b->pal), free(b->weights), free(b->cpu_v);
    cli_retarget_close(&b->rt);
    sk_asset_destroy(b->asset);
}

/* The pose at v->t, skinned on the GPU or the CPU; returns the skinning path's name. */
static const char *pose(viewer *v, skr_draw_desc *dd) {
    const sk_skeleton *s = v->asset->skeleton;
    if (v->clip >= 0)
        sk_clip_sample(v->asset->clips[v->clip], s, v->t, SK_LOOP_REPEAT, SK_POSE_OF(s, v->local, v->weights), NULL);
    else sk_pose_rest(s, SK_POSE_OF(s, v->local, v->weights), NULL);
    sk_local_to_model(s, SK_POSE_OF(s, v->local, NULL), NULL, v->world, s->joint_count, NULL);
    skr_model_palette(v->model, v->world, v->pal);
    *dd = (skr_draw_desc){v->model, 1, v->pal, NULL, NULL};
    if (v->beside && v->clip >= 0) beside_pose(v->beside, (uint32_t)v->clip, v->t, v->cpu);
    if (!v->cpu) return "GPU skinning";
    sk_error e2 = {0};
    const char *mode = v->dqs ? "CPU DQS" : "CPU LBS";
    sk_skin_method method = v->dqs ? SK_SKIN_DQS : SK_SKIN_LBS;
    if (skr_model_skin_cpu(v->model, v->pal, v->weights, method, SK_SIMD_AUTO, v->cpu_v, &e2) != SK_OK) {
        /* DQS refuses scaled joints: say so and fall back to LBS. */
        if (v->dqs) fprintf(stderr, "skelanim: view: %s (back to LBS)\n", e2.message);
        v->dqs = false;
        skr_model_skin_cpu(v->model, v->pal, v->weights, SK_SKIN_LBS, SK_SIMD_AUTO, v->cpu_v, NULL);
    }
    dd->palettes = NULL;
    dd->cpu_vertices = v->cpu_v;
    return mode;
}

static void print_state(const viewer *v, uint32_t frame) {
    const sk_clip *c = v->clip >= 0 ? v->asset->clips[v->clip] : NULL;
    printf("frame %u clip %s time %.4f speed %.4f %s mode %s skeleton %s camera %.2f %.2f %.4f target %.4f %.4f %.4f\n",
           frame, c ? sk_clip_name(c) : "(rest)", c ? (double)sk_clip_wrap_time(c, v->t, SK_LOOP_REPEAT) : 0.0,
           v->speed, v->paused ? "paused" : "playing", v->dqs && v->cpu ? "cpu-dqs" : v->cpu ? "cpu-lbs" : "gpu",
           v->skeleton ? "on" : "off", (double)v->orbit.az, (double)v->orbit.el, (double)v->orbit.dist,
           (double)v->orbit.target[0], (double)v->orbit.target[1], (double)v->orbit.target[2]);
}

static bool view_panel_hook(void *user, const void *ev) { return panel_event(user, ev); }

/* The panel over the frame: clips, time, speed, pause; what it changed back into v. */
static void view_panel(viewer *v, int fw, int fh, double frame_ms, double anim_ms) {
    if (!panel_visible(v->pn)) return;
    const sk_clip *c = v->clip >= 0 ? v->asset->clips[v->clip] : NULL;
    panel_state ps;
    memset(&ps, 0, sizeof ps);
    ps.clip_names = v->clip_names, ps.clip_count = v->asset->clip_count, ps.clip = v->clip;
    ps.time = c ? sk_clip_wrap_time(c, v->t, SK_LOOP_REPEAT) : 0, ps.duration = c ? sk_clip_duration(c) : 0;
    ps.speed = v->speed, ps.paused = v->paused;
    ps.frame_ms = frame_ms, ps.anim_ms = anim_ms, ps.anim_time = ps.time;
    panel_frame(v->pn, &ps, fw, fh);
    if (ps.clip != v->clip && ps.clip >= 0 && ps.clip < (int32_t)v->asset->clip_count) {
        v->clip = ps.clip, v->t = 0;
        clip_bounds(v->asset, v->model, v->clip, v->local, v->world, v->weights, v->pal, v->bmin, v->bmax);
    } else if (c && ps.time != sk_clip_wrap_time(c, v->t, SK_LOOP_REPEAT)) {
        v->t = ps.time;
    }
    if (isfinite(ps.speed) && ps.speed >= 0) v->speed = ps.speed;
    v->paused = ps.paused;
}

/* The frames, until the window closes (or --frames N of them); false after an error in err. */
static bool view_loop(viewer *v, const view_args *a, cli_window *win, skr_renderer *rn, sk_error *err) {
    double last = cli_now(), title_at = 0, frame_acc = 0, anim_acc = 0;
    int frame_n = 0;
    const char *next_key = a->keys;
    for (uint32_t frame = 0; a->frames == 0 || frame < a->frames; frame++) {
        if (next_key && *next_key && frame > 0) {
            char buf[64];
            size_t len = strcspn(next_key, ",");
            snprintf(buf, sizeof buf, "%.*s", (int)len, next_key);
            next_key += len + (next_key[len] == ',');
            if (!cli_window_push_key(win, buf, err)) return false;
        }
        cli_input in;
        if (!cli_window_poll(win, &in)) break;
        double now = cli_now(), dt = now - last;
        last = now;
        if (a->frames) dt = 1.0 / 30.0; /* scripted: fixed steps */
        for (int k = 0; k < in.nkeys; k++)
            if (in.keys[k] == CLI_KEY_F1) panel_set_visible(v->pn, !panel_visible(v->pn));
            else press(v, in.keys[k]);
        cli_orbit_apply(&v->orbit, &in);
        if (!v->paused) v->t += dt * v->speed;
        int fw, fh;
        cli_window_begin(win, &fw, &fh);
        double a0 = cli_now();
        skr_draw_desc dd;
        const char *mode = pose(v, &dd);
        double a1 = cli_now();
        if (a->print_state) print_state(v, frame);
        skr_camera cam = {0};
        skr_camera_orbit(&cam, v->orbit.target, v->orbit.az, v->orbit.el, v->orbit.dist, fw, fh);
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, true, v->bmin[1], 0, {0, 0}};
        skr_begin_frame(rn, &fd);
        skr_draw_model(rn, &dd);
        if (v->beside && v->clip >= 0) {
            skr_draw_desc bd = {v->beside->model, 1, v->beside->pal, NULL, NULL};
            if (v->cpu) bd.palettes = NULL, bd.cpu_vertices = v->beside->cpu_v;
            skr_draw_model(rn, &bd);
        }
        if (v->skeleton) {
            const float rgbk[3] = {0.95f, 0.35f, 0.1f};
            skr_draw_skeleton(rn, v->asset->skeleton, v->world, rgbk);
        }
        view_panel(v, fw, fh, frame_n ? frame_acc * 1e3 / frame_n : 0, frame_n ? anim_acc * 1e3 / frame_n : 0);
        if (a->screenshot && a->frames && frame + 1 == a->frames) {
            unsigned char *rgb = malloc((size_t)fw * (size_t)fh * 3);
            if (rgb) cli_window_read(win, rgb, fw, fh);
            bool ok = rgb && skr_write_image(a->screenshot, rgb, fw, fh, err) == SK_OK;
            free(rgb);
            if (!ok) return false;
            printf("wrote %s (%dx%d)\n", a->screenshot, fw, fh);
        }
        cli_window_swap(win);
        frame_acc += cli_now() - a0;
        anim_acc += a1 - a0;
        frame_n++;
        if (a->frames || now - title_at > 0.5) { /* scripted runs: every frame */
            const sk_clip *c = v->clip >= 0 ? v->asset->clips[v->clip] : NULL;
            char title[512];
            snprintf(title, sizeof title,
                     "skelanim view — %s — clip %s %.2f/%.2f s ×%.2f%s — %s — %.2f ms/frame (animation %.3f ms)",
                     a->file, c ? sk_clip_name(c) : "(rest)", c ? sk_clip_wrap_time(c, v->t, SK_LOOP_REPEAT) : 0.0,
                     c ? (double)sk_clip_duration(c) : 0.0, v->speed, v->paused ? " paused" : "", mode,
                     frame_acc * 1e3 / frame_n, anim_acc * 1e3 / frame_n);
            cli_window_title(win, title);
            title_at = now;
            frame_acc = anim_acc = 0;
            frame_n = 0;
        }
        if (a->print_state) printf("title %s\n", cli_window_get_title(win)); /* as the window has it */
    }
    return true;
}

static int cmd_view(int argc, char **argv) {
    if (!cli_window_supported() && !cli_asks_help(argc, argv)) {
        fprintf(stderr, "skelanim: view: this skelanim was built without SDL2 (Debian: libsdl2-dev); "
                        "`skelanim render` draws off-screen\n");
        return 1;
    }
    view_args a;
    memset(&a, 0, sizeof a);
    cli_seen seen;
    int rc = cli_parse(&cli_cmd_view, argc, argv, &a, &seen);
    if (rc != CLI_CONTINUE) return rc;
    if (a.dqs) a.cpu = true;
    if (a.screenshot && !a.frames) a.frames = 1;
    if ((a.keys || a.print_state) && !a.frames) {
        fprintf(stderr, "skelanim: view: --keys and --print-state need --frames N (a scripted run)\n");
        return 1;
    }
    if (a.keys && !keys_known(a.keys)) return 1;
    if (view_trace_is(a.file)) { /* a locomote --trace: replayed (cli/view_trace.c) */
        view_trace_opts vt = {a.file, (int)a.size[0], (int)a.size[1], a.frames, a.screenshot, a.keys, a.overlay,
                              a.print_state};
        return view_trace_run(&vt);
    }
    sk_asset *asset = NULL;
    if (!cli_load(a.file, &asset)) return 1;
    viewer v;
    memset(&v, 0, sizeof v);
    view_beside beside;
    memset(&beside, 0, sizeof beside);
    v.asset = asset;
    v.clip = asset->clip_count ? 0 : -1;
    if (a.clip && (v.clip = cli_find_clip(asset, a.clip)) == -2) {
        sk_asset_destroy(asset);
        return 1;
    }
    v.t = a.time, v.speed = 1, v.paused = cli_given(&seen, "--time");
    v.cpu = a.cpu, v.dqs = a.dqs, v.skeleton = a.skeleton;
    v.w = (int)a.size[0], v.h = (int)a.size[1];
    rc = 1;
    sk_error err = {0};
    cli_window *win = NULL;
    skr_renderer *rn = NULL;
    char title[512];
    snprintf(title, sizeof title, "skelanim view — %s", a.file);
    if (!(win = cli_window_open(title, v.w, v.h, &err))) goto fail;
    if (skr_renderer_create(&rn, &err) != SK_OK) goto fail;
    if (skr_model_create(asset, 0, &v.model, &err) != SK_OK) goto fail;
    if (!(v.pn = panel_create(win, a.panel == 0, &err))) { /* the viewer goes on without it, unless asked for */
        if (a.panel == 0) goto fail;
        fprintf(stderr, "skelanim: view: no panel: %s\n", err.message);
        err.message[0] = 0;
    }
    cli_window_set_hook(win, view_panel_hook, v.pn);
    if (!(v.clip_names = calloc(asset->clip_count + 1, sizeof *v.clip_names))) goto done;
    for (uint32_t i = 0; i < asset->clip_count; i++) v.clip_names[i] = sk_clip_name(asset->clips[i]);
    const sk_skeleton *s = asset->skeleton;
    uint32_t n = s->joint_count, np = skr_model_palette_size(v.model), nv = skr_model_vertex_count(v.model);
    v.local = calloc(n ? n : 1, sizeof *v.local);
    v.world = calloc(n ? n : 1, sizeof *v.world);
    v.pal = calloc(np ? np : 1, sizeof *v.pal);
    v.weights = calloc(s->weight_total + 1, sizeof *v.weights);
    v.cpu_v = calloc((size_t)nv * 6 + 1, sizeof *v.cpu_v);
    if (!v.local || !v.world || !v.pal || !v.weights || !v.cpu_v) goto done;
    v.morph = skr_model_has_morph(v.model); /* morph targets are applied on the CPU path only */
    if (v.morph) v.cpu = true;
    if (a.beside && !beside_open(&v, a.beside, &beside, &err)) {
        if (err.message[0]) goto fail;
        goto done;
    }
    first_bounds(&v, v.paused);
    if (v.beside) /* the camera takes in both */
        for (int k = 0; k < 3; k++) {
            float o = beside.offset[k];
            v.bmin[k] = fminf(v.bmin[k], v.bmin[k] + o), v.bmax[k] = fmaxf(v.bmax[k], v.bmax[k] + o);
        }
    reset_orbit(&v.orbit, v.bmin, v.bmax, v.w, v.h);
    if (!view_loop(&v, &a, win, rn, &err)) goto fail;
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: view: %s\n", err.message[0] ? err.message : "failed");
done:
    beside_close(&beside);
    panel_destroy(v.pn);
    free(v.clip_names);
    skr_model_destroy(v.model);
    skr_renderer_destroy(rn);
    cli_window_close(win);
    free(v.local), free(v.world), free(v.pal), free(v.weights), free(v.cpu_v);
    sk_asset_destroy(asset);
    return rc;
}

static const cli_opt view_opts[] = {
    {"--clip", CLI_STRING(view_args, clip), .meta = "NAME|INDEX|none", .help = "the clip to start with", .dflt_text = "the first"},
    {"--time", CLI_REAL(view_args, time), .meta = "T", .min = -CLI_TIME_MAX, .max = CLI_TIME_MAX,
     .help = "start paused at T, the camera framed on that pose, as render --time T"},
    {"--size", CLI_INTS(view_args, size, 2, 'x'), .meta = "WxH", .min = 16, .max = 8192, .dflt = "960x720",
     .help = "the window's size in pixels"},
    {"--cpu", CLI_FLAG(view_args, cpu), .help = "start with skinning on the CPU (LBS)"},
    {"--dqs", CLI_FLAG(view_args, dqs), .help = "start with dual-quaternion skinning on the CPU"},
    {"--skeleton", CLI_FLAG(view_args, skeleton), .help = "start with the skeleton drawn over the mesh"},
    {"--frames", CLI_INT(view_args, frames), .meta = "N", .min = 0, .max = 1000000, .dflt = "0",
     .help = "draw N frames at 1/30 s steps and exit; 0: until the window is closed"},
    {"--screenshot", CLI_STRING(view_args, screenshot), .meta = "F.png",
     .help = "write the last frame to F.png (--frames N, else 1 frame)"},
    {"--keys", CLI_STRING(view_args, keys), .meta = "K,K,...",
     .help = "press these keys, one per frame from the second on (with --frames; names below)"},
    {"--beside", CLI_STRING(view_args, beside), .meta = "TARGET",
     .help = "also show TARGET (a file or " SK_CLI_MANNEQUIN ") beside it, playing the clips retargeted onto it"},
    {"--overlay", CLI_FLAG(view_args, overlay),
     .help = "(a TRACE.jsonl) start with the locomotion debugging view on; O toggles it"},
    {"--panel", CLI_CHOICE(view_args, panel, "on|off"), .dflt = "off",
     .help = "start with the on-screen panel shown: clips, time, speed, overlays (F1 toggles it)"},
    {"--print-state", CLI_FLAG(view_args, print_state),
     .help = "print the state and window title of every frame (with --frames)"},
};
static const cli_arg view_arg_list[] = {{"FILE", CLI_ARG(view_args, file), .flags = CLI_REQUIRED, .help = CLI_FILE_HELP}};
static const char *const view_notes[] = {
    "keys:  space pause | left/right scrub (1/30 s) | up/down or +/- speed | 0 speed 1\n"
    "       tab, shift-tab, 1-9 clip | c CPU/GPU skinning | d LBS/DQS (CPU) | k skeleton\n"
    "       r reset camera | F1 the panel | q or Esc quit\n"
    "FILE.jsonl: a `locomote --trace` replayed: bones, terrain, path; o the debugging view\n"
    "       (--overlay: on from the start) | space pause | left/right step a frame | up/down speed\n"
    "mouse: left drag orbit, right drag pan, wheel zoom\n"
    "--keys names: space left right up down tab backtab plus minus escape f1, a-z, 0-9;\n"
    "       the mouse: drag pan wheelup wheeldown\n",
    NULL,
};
const cli_command cli_cmd_view = {
    .name = "view",
    .run = cmd_view,
    .summary = "open a window (SDL2): orbit camera, clips, pause, scrub, skinning modes",
    .about = "Opens an SDL2 window with the renderer of render: orbit camera, clip switching, "
             "pause, scrub and speed, a CPU/GPU skinning toggle (LBS or DQS on the CPU), a "
             "skeleton overlay, the frame time in the title.",
    .opts = view_opts,
    .nopts = CLI_COUNT(view_opts),
    .args = view_arg_list,
    .nargs = CLI_COUNT(view_arg_list),
    .notes = view_notes,
};
