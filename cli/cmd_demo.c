/* skelanim demo: a crowd of mannequins, each with its own walk/run mix, phase
 * and speed, walking over a ground plane; rendered off-screen to a GIF
 * (out/demo.gif). The animation CPU time per frame (sampling, blending,
 * local-to-model, palettes) is measured separately from rendering. */
#include "cli.h"
#include "skr.h"
#include "window.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct walker {
    float x, z, yaw;      /* ground position and heading */
    float mix;            /* 0 = walk, 1 = run */
    float phase, rate;    /* cycle phase [0,1) and speed multiplier */
    float tint[4];
} walker;

static float rnd(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.0f;
}

typedef struct crowd {
    const sk_skeleton *s;
    const sk_clip *cw, *cr;
    float dw, dr, vw, vr, side;
    int32_t hips;
    walker *cw_;
    uint32_t count, np;
    sk_transform *pw, *pr, *pose;
    sk_mat4 *world, *pal;
    const skr_model *model;
    uint32_t *cursors;    /* per character: a key cursor per track of each clip */
    uint32_t tw, tr;      /* track counts of the two clips */
} crowd;

/* One animation step of the whole crowd: the CPU time the demo reports. */
static void crowd_step(crowd *cd, float dt) {
    const sk_skeleton *s = cd->s;
    const sk_clip *cw = cd->cw, *cr = cd->cr;
    float dw = cd->dw, dr = cd->dr, vw = cd->vw, vr = cd->vr, side = cd->side;
    int32_t hips = cd->hips;
    walker *cw_ = cd->cw_;
    uint32_t count = cd->count, np = cd->np;
    sk_transform *pw = cd->pw, *pr = cd->pr, *pose = cd->pose;
    sk_mat4 *world = cd->world, *pal = cd->pal;
    const skr_model *model = cd->model;
    for (uint32_t i = 0; i < count; i++) {
        walker *w = &cw_[i];
        /* Phase-synchronised walk/run mix (seed 002 §4.1): one normalised
         * cycle drives both clips; the cycle length blends with the mix. */
        float cyc = dw + (dr - dw) * w->mix, v = vw + (vr - vw) * w->mix;
        w->phase = fmodf(w->phase + dt * w->rate / cyc, 1.0f);
        uint32_t *ci = cd->cursors + (size_t)i * (cd->tw + cd->tr);
        sk_clip_sample_cursor(cw, s, w->phase * dw, SK_LOOP_REPEAT, ci, sk_clip_cursor_size(cw), SK_POSE_OF(s, pw, NULL), NULL);
        sk_clip_sample_cursor(cr, s, w->phase * dr, SK_LOOP_REPEAT, ci + cd->tw, sk_clip_cursor_size(cr), SK_POSE_OF(s, pr, NULL), NULL);
        sk_blend_two(s, SK_POSE_OF(s, pw, NULL), SK_POSE_OF(s, pr, NULL), w->mix, NULL, false, SK_POSE_OF(s, pose, NULL), NULL);
        pose[hips].t.z = 0; /* in place: the character moves instead */
        float step = v * w->rate * dt, c = cosf(w->yaw), sn = sinf(w->yaw);
        w->x += sn * step, w->z += c * step;
        if (w->z > side / 2) w->z -= side;
        if (w->z < -side / 2) w->z += side;
        sk_transform root = {{w->x, 0, w->z}, sk_quat_from_axis_angle(sk_vec3_make(0, 1, 0), w->yaw), {1, 1, 1}};
        sk_mat4 rm = sk_mat4_from_transform(&root);
        sk_local_to_model(s, SK_POSE_OF(s, pose, NULL), &rm, world, (s)->joint_count, NULL);
        skr_model_palette(model, world, pal + (size_t)i * np);
    }
}

/* --window: the crowd in an SDL2 window until it is closed. */
static void demo_window(crowd *c, cli_window *win, skr_renderer *rn, const float *tints, uint32_t max_frames,
                        const char *png) {
    const skr_model *model = c->model;
    cli_orbit orbit = {{0, 0.9f, 0}, 30.0f, 28.0f, c->side * 0.55f + 6.0f};
    double last = cli_now(), title_at = 0, anim_acc = 0, frame_acc = 0, speed = 1;
    int nframes = 0;
    double anim_total = 0, frame_total = 0;
    uint32_t total_frames = 0;
    bool paused = false, tty = isatty(1);
    for (uint32_t frame = 0; max_frames == 0 || frame < max_frames; frame++) {
        cli_input in;
        if (!cli_window_poll(win, &in)) break;
        for (int k = 0; k < in.nkeys; k++) {
            if (in.keys[k] == ' ') paused = !paused;
            else if (in.keys[k] == CLI_KEY_UP || in.keys[k] == '+' || in.keys[k] == '=') speed *= 1.25;
            else if (in.keys[k] == CLI_KEY_DOWN || in.keys[k] == '-') speed /= 1.25;
        }
        cli_orbit_apply(&orbit, &in);
        double now = cli_now(), dt = fmin(now - last, 0.1);
        last = now;
        int fw, fh;
        cli_window_begin(win, &fw, &fh);
        double t0 = cli_now();
        crowd_step(c, paused ? 0.0f : (float)(dt * speed));
        double t1 = cli_now();
        skr_camera cam = {0};
        skr_camera_orbit(&cam, orbit.target, orbit.az, orbit.el, orbit.dist, fw, fh);
        skr_frame_desc fd = {&cam, {0.80f, 0.84f, 0.90f}, true, 0, c->side, {0, 0}};
        skr_begin_frame(rn, &fd);
        skr_draw_desc dd = {model, c->count, c->pal, NULL, tints};
        skr_draw_model(rn, &dd);
        if (png && max_frames && frame + 1 == max_frames) {
            unsigned char *rgb = malloc((size_t)fw * (size_t)fh * 3);
            sk_error e = {0};
            if (rgb) cli_window_read(win, rgb, fw, fh);
            if (!rgb || skr_write_image(png, rgb, fw, fh, &e) != SK_OK) fprintf(stderr, "skelanim: demo: %s\n", e.message);
            free(rgb);
        }
        cli_window_swap(win);
        anim_acc += t1 - t0;
        frame_acc += cli_now() - t0;
        anim_total += t1 - t0;
        frame_total += cli_now() - t0;
        nframes++;
        total_frames++;
        if (now - title_at > 0.5) {
            char title[256];
            snprintf(title, sizeof title,
                     "skelanim demo — %u mannequins — animation %.3f ms/frame (CPU) — frame %.1f ms — space pause, "
                     "up/down speed, drag orbit, wheel zoom",
                     c->count, anim_acc * 1e3 / nframes, frame_acc * 1e3 / nframes);
            cli_window_title(win, title);
            if (tty) {
                printf("\ranimation CPU time per frame: %.3f ms for %u characters; whole frame %.1f ms   ",
                       anim_acc * 1e3 / nframes, c->count, frame_acc * 1e3 / nframes);
                fflush(stdout);
            }
            title_at = now;
            anim_acc = frame_acc = 0;
            nframes = 0;
        }
    }
    if (tty) printf("\n");
    if (total_frames)
        printf("skelanim demo --window: %u mannequins, %u frames; animation CPU time per frame %.3f ms (%.2f us per "
               "character); whole frame (animation + drawing + swap) %.1f ms\n",
               c->count, total_frames, anim_total * 1e3 / total_frames, anim_total * 1e6 / total_frames / c->count,
               frame_total * 1e3 / total_frames);
}

typedef struct demo_args {
    uint32_t count, frames;
    const char *out, *png;
    bool window;
} demo_args;

/* Two streams crossing, each character with its own walk/run mix, phase, rate and tint. */
static void place_walkers(walker *ws, uint32_t count, float side) {
    uint32_t seed = 7;
    for (uint32_t i = 0; i < count; i++) {
        walker *w = &ws[i];
        w->x = (rnd(&seed) - 0.5f) * side;
        w->z = (rnd(&seed) - 0.5f) * side;
        w->yaw = rnd(&seed) < 0.5f ? 0.0f : 3.14159265f; /* two streams, crossing */
        w->x += w->yaw == 0.0f ? -side * 0.02f : side * 0.02f;
        w->mix = rnd(&seed) < 0.6f ? rnd(&seed) * 0.3f : 0.5f + rnd(&seed) * 0.5f;
        w->phase = rnd(&seed);
        w->rate = 0.9f + 0.2f * rnd(&seed);
        float h = rnd(&seed);
        w->tint[0] = 0.55f + 0.4f * h, w->tint[1] = 0.6f + 0.3f * (1 - h), w->tint[2] = 0.75f - 0.3f * h, w->tint[3] = 1;
    }
}

/* The clips move forward in the clip (root motion is authored in): each
 * clip's speed, measured at the hips (pa, pb: scratch poses). */
static float clip_speed(const sk_skeleton *s, const sk_clip *c, int32_t hips, sk_transform *pa, sk_transform *pb) {
    float d = sk_clip_duration(c);
    sk_clip_sample(c, s, 0, SK_LOOP_CLAMP, SK_POSE_OF(s, pa, NULL), NULL);
    sk_clip_sample(c, s, d, SK_LOOP_CLAMP, SK_POSE_OF(s, pb, NULL), NULL);
    return (pb[hips].t.z - pa[hips].t.z) / d;
}

/* The GIF (out/demo.gif) of a.frames frames at 15 fps, and the times. */
static bool demo_gif(crowd *c, const demo_args *a, skr_headless *hd, skr_renderer *rn, const float *tints,
                     sk_error *err) {
    const uint32_t size = 480;
    unsigned char *rgb = malloc((size_t)size * size * 3);
    skr_gif *gif = NULL;
    bool ok = false;
    if (!rgb || !cli_make_parent_dir(a->out)) goto done;
    if (skr_gif_open(a->out, (int)size, (int)size, &gif, err) != SK_OK) goto done;
    skr_camera cam = {0};
    float target[3] = {0, 0.9f, 0};
    skr_camera_orbit(&cam, target, 30.0f, 28.0f, c->side * 0.55f + 6.0f, (int)size, (int)size);
    const float fps = 15.0f, dt = 1.0f / fps;
    double anim_s = 0, render_s = 0;
    for (uint32_t f = 0; f < a->frames; f++) {
        double t0 = cli_now();
        crowd_step(c, dt);
        double t1 = cli_now();
        anim_s += t1 - t0;
        skr_frame_desc fd = {&cam, {0.80f, 0.84f, 0.90f}, true, 0, c->side, {0, 0}};
        skr_begin_frame(rn, &fd);
        skr_draw_desc dd = {c->model, c->count, c->pal, NULL, tints};
        skr_draw_model(rn, &dd);
        skr_headless_read(hd, rgb);
        render_s += cli_now() - t1;
        if (skr_gif_add(gif, rgb, (int)lrintf(100.0f / fps), err) != SK_OK) goto done;
    }
    if (a->png && skr_write_image(a->png, rgb, (int)size, (int)size, err) != SK_OK) goto done;
    skr_gif *g = gif;
    gif = NULL;
    if (skr_gif_close(g, err) != SK_OK) goto done;
    printf("skelanim demo: %u mannequins (%u joints each), %u frames at %.0f fps -> %s\n", c->count,
           c->s->joint_count - 1, a->frames, (double)fps, a->out);
    printf("animation CPU time per frame (sample 2 clips, blend, local-to-model, palette): %.3f ms (%.2f us per character)\n",
           anim_s * 1e3 / a->frames, anim_s * 1e6 / a->frames / c->count);
    printf("rendering per frame (off-screen, software rasteriser, GPU-style skinning in the shader): %.1f ms\n",
           render_s * 1e3 / a->frames);
    printf("open %s to watch it; try: skelanim render @mannequin --clip run --frames 21 --out run.gif\n", a->out);
    ok = true;
done:
    skr_gif_close(gif, NULL);
    free(rgb);
    return ok;
}

static int cmd_demo(int argc, char **argv) {
    demo_args args;
    memset(&args, 0, sizeof args);
    cli_seen seen;
    int rc = cli_parse(&cli_cmd_demo, argc, argv, &args, &seen);
    if (rc != CLI_CONTINUE) return rc;
    uint32_t count = args.count;
    sk_asset *a = NULL;
    if (!cli_load(SK_CLI_MANNEQUIN, &a)) return 1;
    const sk_skeleton *s = a->skeleton;
    int32_t walk = sk_asset_find_clip(a, "walk"), run = sk_asset_find_clip(a, "run");
    int32_t hips = sk_skeleton_find(s, "hips");
    if (walk < 0 || run < 0 || hips < 0) {
        fprintf(stderr, "skelanim: demo: the mannequin lacks walk/run/hips\n");
        sk_asset_destroy(a);
        return 1;
    }
    const sk_clip *cw = a->clips[walk], *cr = a->clips[run];
    uint32_t n = s->joint_count;
    sk_transform *pw = calloc(n, sizeof *pw), *pr = calloc(n, sizeof *pr), *pose = calloc(n, sizeof *pose);
    sk_mat4 *world = calloc(n, sizeof *world);
    walker *walkers = calloc(count, sizeof *walkers);
    float side = sqrtf((float)count) * 1.6f; /* metres: about 2.5 m^2 per character */
    rc = 1;
    sk_error err = {0};
    skr_headless *hd = NULL;
    skr_renderer *rn = NULL;
    skr_model *model = NULL;
    sk_mat4 *pal = NULL;
    float *tints = NULL;
    uint32_t *cursors = NULL;
    cli_window *win = NULL;
    if (!pw || !pr || !pose || !world || !walkers) goto done;
    float vw = clip_speed(s, cw, hips, pw, pr), vr = clip_speed(s, cr, hips, pw, pr);
    place_walkers(walkers, count, side);
    if (args.window) {
        if (!(win = cli_window_open("skelanim demo", 1024, 720, &err))) goto fail;
    } else {
        if (!(hd = skr_headless_create(480, 480, 4, &err))) goto fail;
        skr_headless_bind(hd);
    }
    if (skr_renderer_create(&rn, &err) != SK_OK) goto fail;
    if (skr_model_create(a, 0, &model, &err) != SK_OK) goto fail;
    uint32_t np = skr_model_palette_size(model);
    uint32_t tw = sk_clip_track_count(cw), tr = sk_clip_track_count(cr);
    pal = calloc((size_t)count * np, sizeof *pal);
    tints = calloc((size_t)count * 4, sizeof *tints);
    cursors = calloc((size_t)count * (tw + tr), sizeof *cursors);
    if (!pal || !tints || !cursors) goto done;
    for (uint32_t i = 0; i < count; i++) memcpy(tints + 4 * i, walkers[i].tint, sizeof walkers[i].tint);
    crowd c = {s, cw, cr, sk_clip_duration(cw), sk_clip_duration(cr), vw, vr, side, hips, walkers, count,
               np, pw, pr, pose, world, pal, model, cursors, tw, tr};
    if (args.window) demo_window(&c, win, rn, tints, cli_given(&seen, "--frames") ? args.frames : 0, args.png);
    else if (!demo_gif(&c, &args, hd, rn, tints, &err)) goto fail;
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: demo: %s\n", err.message[0] ? err.message : "failed");
done:
    skr_model_destroy(model);
    skr_renderer_destroy(rn);
    skr_headless_destroy(hd);
    cli_window_close(win);
    free(pal), free(tints), free(pw), free(pr), free(pose), free(world), free(walkers), free(cursors);
    sk_asset_destroy(a);
    return rc;
}

static const cli_opt demo_opts[] = {
    {"--count", CLI_INT(demo_args, count), .meta = "N", .min = 1, .max = 20000, .dflt = "200", .help = "mannequins in the crowd"},
    {"--frames", CLI_INT(demo_args, frames), .meta = "N", .min = 1, .max = 600, .dflt = "36",
     .help = "frames of the GIF, at 15 fps; --window: exit after N frames, else run until closed"},
    {"--out", CLI_STRING(demo_args, out), .meta = "FILE.gif", .dflt = "out/demo.gif", .help = "the GIF"},
    {"--png", CLI_STRING(demo_args, png), .meta = "LAST_FRAME.png", .help = "also write the last frame as a PNG"},
    {"--window", CLI_FLAG(demo_args, window),
     .help = "show the crowd live in a window (SDL2): space pause, up/down speed, drag orbit, wheel zoom"},
};
static const char *const demo_notes[] = {
    "The walking demos: skelanim demo locomotion and skelanim demo procedural.\n",
    NULL,
};
const cli_command cli_cmd_demo = {
    .name = "demo",
    .run = cmd_demo,
    .summary = "a crowd of mannequins walking, rendered to out/demo.gif (--window: live)",
    .about = "A crowd of mannequins, each with its own walk/run mix, phase and speed, walking "
             "over a ground plane, rendered off-screen to out/demo.gif; the animation CPU time "
             "per frame (sampling, blending, local-to-model, palettes) is measured apart from the "
             "drawing.",
    .opts = demo_opts,
    .nopts = CLI_COUNT(demo_opts),
    .notes = demo_notes,
};
