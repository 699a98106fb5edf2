/* skelanim view: an SDL2 window with the renderer of `skelanim render`
 * (OpenGL 3.3 core through libepoxy, GPU skinning with the palette in a
 * texture buffer), an orbit camera, clip switching, pause/scrub/speed, a
 * CPU/GPU skinning toggle (LBS or DQS on the CPU), a skeleton overlay and the
 * frame time in the title. Also the window used by `skelanim demo --window`.
 *
 * --frames N [--screenshot F.png] renders N frames and exits (for tests under
 * Xvfb and for scripted screenshots). */
#include "cli.h"
#include "skr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef SK_HAVE_SDL2
#include <SDL.h>
#include <epoxy/gl.h>

struct cli_window {
    SDL_Window *win;
    SDL_GLContext ctx;
    bool dragging, panning;
};

cli_window *cli_window_open(const char *title, int w, int h, sk_error *err) {
    const char *x11 = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if (!getenv("SDL_VIDEODRIVER") && !(x11 && *x11) && !(wl && *wl)) {
        sk_error_set(err, SK_ERR_UNSUPPORTED,
                     "no display (neither DISPLAY nor WAYLAND_DISPLAY is set); `skelanim render` and `skelanim demo` "
                     "draw to image files without one");
        return NULL;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        sk_error_set(err, SK_ERR_UNSUPPORTED, "no display for a window (%s); `skelanim render` draws off-screen",
                     SDL_GetError());
        return NULL;
    }
    /* SDL falls back to an invisible off-screen driver when there is no
     * display; a window nobody sees is no use: say so (unless asked for). */
    const char *drv = SDL_GetCurrentVideoDriver();
    if (drv && (!strcmp(drv, "offscreen") || !strcmp(drv, "dummy") || !strcmp(drv, "evdev")) &&
        !getenv("SDL_VIDEODRIVER")) {
        sk_error_set(err, SK_ERR_UNSUPPORTED,
                     "no display (SDL found only its '%s' video driver); `skelanim render` and `skelanim demo` "
                     "draw to image files without one",
                     drv);
        SDL_Quit();
        return NULL;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    SDL_GL_SetAttribute(SDL_GL_MULTISAMPLEBUFFERS, 1);
    SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, 4);
    cli_window *cw = calloc(1, sizeof *cw);
    if (!cw) {
        SDL_Quit();
        sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
    cw->win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h, flags);
    if (!cw->win) { /* no multisampling available: try without */
        SDL_GL_SetAttribute(SDL_GL_MULTISAMPLEBUFFERS, 0);
        SDL_GL_SetAttribute(SDL_GL_MULTISAMPLESAMPLES, 0);
        cw->win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h, flags);
    }
    if (cw->win) cw->ctx = SDL_GL_CreateContext(cw->win);
    if (!cw->win || !cw->ctx) {
        sk_error_set(err, SK_ERR_UNSUPPORTED, "cannot open an OpenGL 3.3 core window: %s", SDL_GetError());
        if (cw->win) SDL_DestroyWindow(cw->win);
        free(cw);
        SDL_Quit();
        return NULL;
    }
    SDL_GL_MakeCurrent(cw->win, cw->ctx);
    SDL_GL_SetSwapInterval(1);
    return cw;
}

void cli_window_close(cli_window *cw) {
    if (!cw) return;
    SDL_GL_DeleteContext(cw->ctx);
    SDL_DestroyWindow(cw->win);
    free(cw);
    SDL_Quit();
}

void cli_window_begin(cli_window *cw, int *w, int *h) {
    SDL_GL_GetDrawableSize(cw->win, w, h);
    if (*w < 1) *w = 1;
    if (*h < 1) *h = 1;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, *w, *h);
}

void cli_window_read(cli_window *cw, unsigned char *rgb, int w, int h) {
    (void)cw;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    size_t row = (size_t)w * 3;
    unsigned char *tmp = malloc(row * (size_t)h);
    if (!tmp) return;
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, tmp);
    for (int y = 0; y < h; y++) memcpy(rgb + (size_t)y * row, tmp + (size_t)(h - 1 - y) * row, row);
    free(tmp);
}

void cli_window_swap(cli_window *cw) { SDL_GL_SwapWindow(cw->win); }

void cli_window_title(cli_window *cw, const char *title) { SDL_SetWindowTitle(cw->win, title); }
const char *cli_window_get_title(cli_window *cw) { return SDL_GetWindowTitle(cw->win); }

bool cli_window_poll(cli_window *cw, cli_input *in) {
    memset(in, 0, sizeof *in);
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        switch (e.type) {
        case SDL_QUIT: return false;
        case SDL_KEYDOWN: {
            int k = 0;
            SDL_Keycode kc = e.key.keysym.sym;
            if (kc == SDLK_ESCAPE || kc == SDLK_q) return false;
            if (kc == SDLK_LEFT) k = CLI_KEY_LEFT;
            else if (kc == SDLK_RIGHT) k = CLI_KEY_RIGHT;
            else if (kc == SDLK_UP) k = CLI_KEY_UP;
            else if (kc == SDLK_DOWN) k = CLI_KEY_DOWN;
            else if (kc == SDLK_TAB) k = (e.key.keysym.mod & KMOD_SHIFT) ? CLI_KEY_BACKTAB : '\t';
            else if (kc == SDLK_KP_PLUS) k = '+';
            else if (kc == SDLK_KP_MINUS) k = '-';
            else if (kc >= 32 && kc < 127) k = (int)kc;
            if (k && in->nkeys < (int)(sizeof in->keys / sizeof in->keys[0])) in->keys[in->nkeys++] = k;
            break;
        }
        case SDL_MOUSEBUTTONDOWN:
            if (e.button.button == SDL_BUTTON_LEFT) cw->dragging = true;
            if (e.button.button == SDL_BUTTON_RIGHT || e.button.button == SDL_BUTTON_MIDDLE) cw->panning = true;
            break;
        case SDL_MOUSEBUTTONUP:
            if (e.button.button == SDL_BUTTON_LEFT) cw->dragging = false;
            if (e.button.button == SDL_BUTTON_RIGHT || e.button.button == SDL_BUTTON_MIDDLE) cw->panning = false;
            break;
        case SDL_MOUSEMOTION:
            if (cw->dragging) in->drag_x += (float)e.motion.xrel, in->drag_y += (float)e.motion.yrel;
            if (cw->panning) in->pan_x += (float)e.motion.xrel, in->pan_y += (float)e.motion.yrel;
            break;
        case SDL_MOUSEWHEEL: in->wheel += (float)e.wheel.y; break;
        default: break;
        }
    }
    return true;
}

/* Orbit camera state shared with the demo. */
void cli_orbit_apply(cli_orbit *o, const cli_input *in) {
    o->az -= in->drag_x * 0.4f;
    o->el += in->drag_y * 0.3f;
    if (o->el > 89.0f) o->el = 89.0f;
    if (o->el < -89.0f) o->el = -89.0f;
    o->dist *= powf(0.9f, in->wheel);
    if (o->dist < 0.05f) o->dist = 0.05f;
    if (in->pan_x != 0 || in->pan_y != 0) {
        float az = o->az * 3.14159265f / 180.0f, s = o->dist * 0.0015f;
        o->target[0] -= cosf(az) * in->pan_x * s;
        o->target[2] += sinf(az) * in->pan_x * s;
        o->target[1] += in->pan_y * s;
    }
}

/* Scripted input for --keys (tests, recorded sessions): the named key is
 * pushed into SDL's event queue as a key press, so it goes through the same
 * cli_window_poll() mapping as a real one. Returns false for an unknown name. */
static bool key_code(const char *name, SDL_Keycode *kc, Uint16 *mod) {
    static const struct { const char *name; SDL_Keycode kc; } named[] = {
        {"space", SDLK_SPACE}, {"left", SDLK_LEFT},   {"right", SDLK_RIGHT}, {"up", SDLK_UP},
        {"down", SDLK_DOWN},   {"tab", SDLK_TAB},     {"backtab", SDLK_TAB}, {"plus", SDLK_KP_PLUS},
        {"minus", SDLK_KP_MINUS}, {"escape", SDLK_ESCAPE},
    };
    *mod = 0;
    *kc = 0;
    if (!strcmp(name, "wheelup") || !strcmp(name, "wheeldown") || !strcmp(name, "drag") || !strcmp(name, "pan"))
        return true; /* mouse input, see push_key */
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (!strcmp(name, named[i].name)) {
            *kc = named[i].kc;
            if (!strcmp(name, "backtab")) *mod = KMOD_LSHIFT;
            return true;
        }
    if (strlen(name) == 1 && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9'))) {
        *kc = (SDL_Keycode)name[0];
        return true;
    }
    return false;
}

static bool push_key(const char *name) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    if (!strcmp(name, "wheelup") || !strcmp(name, "wheeldown")) { /* one notch of the mouse wheel */
        e.type = SDL_MOUSEWHEEL;
        e.wheel.y = name[5] == 'u' ? 1 : -1;
        return SDL_PushEvent(&e) == 1;
    }
    if (!strcmp(name, "drag") || !strcmp(name, "pan")) { /* 50 px to the right with the left / right button */
        Uint8 button = name[0] == 'd' ? SDL_BUTTON_LEFT : SDL_BUTTON_RIGHT;
        e.type = SDL_MOUSEBUTTONDOWN;
        e.button.button = button;
        if (SDL_PushEvent(&e) != 1) return false;
        memset(&e, 0, sizeof e);
        e.type = SDL_MOUSEMOTION;
        e.motion.xrel = 50;
        if (SDL_PushEvent(&e) != 1) return false;
        memset(&e, 0, sizeof e);
        e.type = SDL_MOUSEBUTTONUP;
        e.button.button = button;
        return SDL_PushEvent(&e) == 1;
    }
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    if (!key_code(name, &e.key.keysym.sym, &e.key.keysym.mod)) return false;
    return SDL_PushEvent(&e) == 1;
}

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
            SDL_Keycode kc;
            Uint16 mod;
            snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), k);
            if (len == 0 || len > 63 || !key_code(buf, &kc, &mod)) {
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
            if (!push_key(buf)) {
                sk_error_set(&err, SK_ERR_UNSUPPORTED, "cannot queue key '%s': %s", buf, SDL_GetError());
                goto fail;
            }
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

#else /* no SDL2 at build time */

cli_window *cli_window_open(const char *title, int w, int h, sk_error *err) {
    (void)title, (void)w, (void)h;
    sk_error_set(err, SK_ERR_UNSUPPORTED, "this skelanim was built without SDL2 (Debian: libsdl2-dev)");
    return NULL;
}
void cli_window_close(cli_window *cw) { (void)cw; }
void cli_window_begin(cli_window *cw, int *w, int *h) { (void)cw, (void)w, (void)h; }
void cli_window_read(cli_window *cw, unsigned char *rgb, int w, int h) { (void)cw, (void)rgb, (void)w, (void)h; }
void cli_window_swap(cli_window *cw) { (void)cw; }
void cli_window_title(cli_window *cw, const char *title) { (void)cw, (void)title; }
const char *cli_window_get_title(cli_window *cw) { (void)cw; return ""; }
bool cli_window_poll(cli_window *cw, cli_input *in) { (void)cw, (void)in; return false; }
void cli_orbit_apply(cli_orbit *o, const cli_input *in) { (void)o, (void)in; }

int cmd_view(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "skelanim: view: this skelanim was built without SDL2 (Debian: libsdl2-dev); "
                    "`skelanim render` draws off-screen\n");
    return 1;
}
#endif
