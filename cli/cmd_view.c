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

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
    fprintf(stderr,
            "usage: skelanim view FILE [--clip NAME|INDEX|none] [--size WxH] [--cpu] [--dqs] [--skeleton]\n"
            "                     [--time T] [--frames N [--screenshot F.png] [--keys K,K,...] [--print-state]]\n"
            "--time T starts paused at T with the camera framed on that pose (as `skelanim render --time T`);\n"
            "--keys presses the listed keys one per frame from the second frame on (names: space left right up\n"
            "down tab backtab plus minus escape, a-z, 0-9; mouse: drag pan wheelup wheeldown); --print-state prints the state of every frame\n"
            "keys: space pause | left/right scrub (1/30 s) | up/down or +/- speed | tab / 1-9 clip\n"
            "      c CPU/GPU skinning | d LBS/DQS (CPU) | k skeleton | r reset camera | q quit\n"
            "mouse: left drag orbit, right drag pan, wheel zoom\n");
}

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

int cmd_view(int argc, char **argv) {
    if (!cli_window_supported()) {
        fprintf(stderr, "skelanim: view: this skelanim was built without SDL2 (Debian: libsdl2-dev); "
                        "`skelanim render` draws off-screen\n");
        return 1;
    }
    const char *file = NULL, *clip_spec = NULL, *shot = NULL, *keys = NULL;
    uint32_t w = 960, h = 720, frames = 0;
    bool cpu = false, dqs = false, skeleton = false, print_state = false, time_set = false;
    double start_time = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool flag = !strcmp(a, "--cpu") || !strcmp(a, "--dqs") || !strcmp(a, "--skeleton") || !strcmp(a, "--print-state");
        if (a[0] == '-' && a[1] && !flag && !v) {
            fprintf(stderr, "skelanim: %s needs a value\n", a);
            return 1;
        }
        if (!strcmp(a, "--cpu")) cpu = true;
        else if (!strcmp(a, "--dqs")) dqs = cpu = true;
        else if (!strcmp(a, "--skeleton")) skeleton = true;
        else if (!strcmp(a, "--print-state")) print_state = true;
        else if (!strcmp(a, "--keys")) keys = argv[++i];
        else if (!strcmp(a, "--time")) {
            if (!cli_parse_real(a, argv[++i], -CLI_TIME_MAX, CLI_TIME_MAX, &start_time)) return 1;
            time_set = true;
        }
        else if (!strcmp(a, "--clip")) clip_spec = argv[++i];
        else if (!strcmp(a, "--screenshot")) shot = argv[++i];
        else if (!strcmp(a, "--frames")) { if (!cli_parse_uint(a, argv[++i], 0, 1000000, &frames)) return 1; }
        else if (!strcmp(a, "--size")) {
            uint32_t wh[2];
            if (!cli_parse_u32s("--size", argv[++i], 'x', 2, 16, 8192, wh)) return 1;
            w = (int)wh[0], h = (int)wh[1];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "skelanim: view: unknown option %s\n", a);
            usage();
            return 1;
        } else if (!file) file = a;
        else {
            fprintf(stderr, "skelanim: view: unexpected argument %s\n", a);
            return 1;
        }
    }
    if (!file) {
        usage();
        return 1;
    }
    if (shot && !frames) frames = 1;
    if ((keys || print_state) && !frames) {
        fprintf(stderr, "skelanim: view: --keys and --print-state need --frames N (a scripted run)\n");
        return 1;
    }
    if (keys) { /* check every name before opening anything */
        char buf[64];
        for (const char *k = keys; *k;) {
            size_t len = strcspn(k, ",");
            snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), k);
            if (len == 0 || len > 63 || !cli_window_key_known(buf)) {
                fprintf(stderr, "skelanim: view: --keys: unknown key name '%s'\n", buf);
                return 1;
            }
            k += len + (k[len] == ',');
        }
    }
    sk_asset *asset = NULL;
    if (!cli_load(file, &asset)) return 1;
    const sk_skeleton *s = asset->skeleton;
    int32_t clip = asset->clip_count ? 0 : -1;
    if (clip_spec && (clip = cli_find_clip(asset, clip_spec)) == -2) {
        sk_asset_destroy(asset);
        return 1;
    }
    int rc = 1;
    sk_error err = {0};
    cli_window *win = NULL;
    skr_renderer *rn = NULL;
    skr_model *model = NULL;
    sk_transform *local = NULL;
    sk_mat4 *world = NULL, *pal = NULL;
    float *weights = NULL, *cpu_v = NULL;
    unsigned char *rgb = NULL;
    char title[512];
    snprintf(title, sizeof title, "skelanim view — %s", file);
    if (!(win = cli_window_open(title, (int)w, (int)h, &err))) goto fail;
    if (skr_renderer_create(&rn, &err) != SK_OK) goto fail;
    if (skr_model_create(asset, 0, &model, &err) != SK_OK) goto fail;
    uint32_t n = s->joint_count, np = skr_model_palette_size(model), nv = skr_model_vertex_count(model);
    local = calloc(n ? n : 1, sizeof *local);
    world = calloc(n ? n : 1, sizeof *world);
    pal = calloc(np ? np : 1, sizeof *pal);
    weights = calloc(s->weight_total + 1, sizeof *weights);
    cpu_v = calloc((size_t)nv * 6 + 1, sizeof *cpu_v);
    if (!local || !world || !pal || !weights || !cpu_v) goto done;
    bool morph = skr_model_has_morph(model); /* morph targets are applied on the CPU path only */
    if (morph) cpu = true;
    float bmin[3], bmax[3];
    if (time_set) { /* frame the pose at --time, as `skelanim render --time` does */
        if (clip >= 0) sk_clip_sample(asset->clips[clip], s, (float)start_time, SK_LOOP_REPEAT, SK_POSE_OF(s, local, weights), NULL);
        else sk_pose_rest(s, SK_POSE_OF(s, local, weights), NULL);
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
        skr_model_palette(model, world, pal);
        for (int k = 0; k < 3; k++) bmin[k] = INFINITY, bmax[k] = -INFINITY;
        skr_model_bounds(model, pal, weights, bmin, bmax);
        if (!(bmin[0] <= bmax[0]))
            for (int k = 0; k < 3; k++) bmin[k] = -1, bmax[k] = 1;
    } else clip_bounds(asset, model, clip, local, world, weights, pal, bmin, bmax);
    cli_orbit orbit;
    reset_orbit(&orbit, bmin, bmax, (int)w, (int)h);
    double t = start_time, speed = 1, last = cli_now(), title_at = 0, frame_acc = 0, anim_acc = 0;
    int frame_n = 0;
    bool paused = time_set;
    const char *next_key = keys;
    for (uint32_t frame = 0; frames == 0 || frame < frames; frame++) {
        if (next_key && *next_key && frame > 0) {
            char buf[64];
            size_t len = strcspn(next_key, ",");
            snprintf(buf, sizeof buf, "%.*s", (int)len, next_key);
            next_key += len + (next_key[len] == ',');
            if (!cli_window_push_key(win, buf, &err)) goto fail;
        }
        cli_input in;
        if (!cli_window_poll(win, &in)) break;
        double now = cli_now(), dt = now - last;
        last = now;
        if (frames) dt = 1.0 / 30.0; /* scripted: fixed steps */
        for (int k = 0; k < in.nkeys; k++) {
            int key = in.keys[k];
            float dur = clip >= 0 ? sk_clip_duration(asset->clips[clip]) : 0;
            if (key == ' ') paused = !paused;
            else if (key == CLI_KEY_LEFT || key == CLI_KEY_RIGHT) {
                paused = true;
                t += key == CLI_KEY_LEFT ? -1.0 / 30.0 : 1.0 / 30.0;
                if (dur > 0) t = fmod(fmod(t, dur) + dur, dur);
            } else if (key == CLI_KEY_UP || key == '+' || key == '=') speed *= 1.25;
            else if (key == CLI_KEY_DOWN || key == '-') speed /= 1.25;
            else if (key == '0') speed = 1;
            else if (key == 'c') cpu = morph ? true : !cpu;
            else if (key == 'd') dqs = !dqs;
            else if (key == 'k') skeleton = !skeleton;
            else if (key == 'r') reset_orbit(&orbit, bmin, bmax, (int)w, (int)h);
            else if ((key == '\t' || key == CLI_KEY_BACKTAB || (key >= '1' && key <= '9')) && asset->clip_count) {
                int32_t nc = (int32_t)asset->clip_count;
                if (key == '\t') clip = (clip + 1) % nc;
                else if (key == CLI_KEY_BACKTAB) clip = (clip + nc - 1) % nc;
                else if (key - '1' < nc) clip = key - '1';
                t = 0;
                clip_bounds(asset, model, clip, local, world, weights, pal, bmin, bmax);
            }
        }
        cli_orbit_apply(&orbit, &in);
        if (!paused) t += dt * speed;
        int fw, fh;
        cli_window_begin(win, &fw, &fh);
        double a0 = cli_now();
        if (clip >= 0) sk_clip_sample(asset->clips[clip], s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, local, weights), NULL);
        else sk_pose_rest(s, SK_POSE_OF(s, local, weights), NULL);
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
        skr_model_palette(model, world, pal);
        const char *mode = "GPU skinning";
        skr_draw_desc dd = {model, 1, pal, NULL, NULL};
        if (cpu) {
            sk_error e2 = {0};
            sk_skin_method method = dqs ? SK_SKIN_DQS : SK_SKIN_LBS;
            mode = dqs ? "CPU DQS" : "CPU LBS";
            if (skr_model_skin_cpu(model, pal, weights, method, SK_SIMD_AUTO, cpu_v, &e2) != SK_OK) {
                /* DQS refuses scaled joints: say so and fall back to LBS. */
                if (dqs) fprintf(stderr, "skelanim: view: %s (back to LBS)\n", e2.message);
                dqs = false;
                skr_model_skin_cpu(model, pal, weights, SK_SKIN_LBS, SK_SIMD_AUTO, cpu_v, NULL);
            }
            dd.palettes = NULL;
            dd.cpu_vertices = cpu_v;
        }
        double a1 = cli_now();
        if (print_state)
            printf("frame %u clip %s time %.4f speed %.4f %s mode %s skeleton %s camera %.2f %.2f %.4f target %.4f %.4f %.4f\n", frame,
                   clip >= 0 ? sk_clip_name(asset->clips[clip]) : "(rest)",
                   clip >= 0 ? (double)sk_clip_wrap_time(asset->clips[clip], t, SK_LOOP_REPEAT) : 0.0, speed,
                   paused ? "paused" : "playing", dqs && cpu ? "cpu-dqs" : cpu ? "cpu-lbs" : "gpu",
                   skeleton ? "on" : "off", (double)orbit.az, (double)orbit.el, (double)orbit.dist,
                   (double)orbit.target[0], (double)orbit.target[1], (double)orbit.target[2]);
        skr_camera cam = {0};
        skr_camera_orbit(&cam, orbit.target, orbit.az, orbit.el, orbit.dist, fw, fh);
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, true, bmin[1], 0, {0, 0}};
        skr_begin_frame(rn, &fd);
        skr_draw_model(rn, &dd);
        if (skeleton) {
            const float rgbk[3] = {0.95f, 0.35f, 0.1f};
            skr_draw_skeleton(rn, s, world, rgbk);
        }
        if (shot && frames && frame + 1 == frames) {
            rgb = malloc((size_t)fw * (size_t)fh * 3);
            if (rgb) cli_window_read(win, rgb, fw, fh);
            if (!rgb || skr_write_image(shot, rgb, fw, fh, &err) != SK_OK) goto fail;
            printf("wrote %s (%dx%d)\n", shot, fw, fh);
        }
        cli_window_swap(win);
        frame_acc += cli_now() - a0;
        anim_acc += a1 - a0;
        frame_n++;
        if (frames || now - title_at > 0.5) { /* scripted runs: every frame */
            float dur = clip >= 0 ? sk_clip_duration(asset->clips[clip]) : 0;
            double ct = clip >= 0 ? sk_clip_wrap_time(asset->clips[clip], t, SK_LOOP_REPEAT) : 0;
            snprintf(title, sizeof title,
                     "skelanim view — %s — clip %s %.2f/%.2f s ×%.2f%s — %s — %.2f ms/frame (animation %.3f ms)", file,
                     clip >= 0 ? sk_clip_name(asset->clips[clip]) : "(rest)", ct, (double)dur, speed,
                     paused ? " paused" : "", mode, frame_acc * 1e3 / frame_n, anim_acc * 1e3 / frame_n);
            cli_window_title(win, title);
            title_at = now;
            frame_acc = anim_acc = 0;
            frame_n = 0;
        }
        if (print_state) printf("title %s\n", cli_window_get_title(win)); /* as the window has it */
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: view: %s\n", err.message[0] ? err.message : "failed");
done:
    skr_model_destroy(model);
    skr_renderer_destroy(rn);
    cli_window_close(win);
    free(local), free(world), free(pal), free(weights), free(cpu_v), free(rgb);
    sk_asset_destroy(asset);
    return rc;
}
