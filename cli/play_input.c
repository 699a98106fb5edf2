/* skelanim play: keyboard, mouse, game controllers and scripted input (play_input.h). */
#include "play_input.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PLAY_K_FWD, PLAY_K_BACK, PLAY_K_LEFT, PLAY_K_RIGHT, PLAY_K_RUN, PLAY_K_STRAFE_L, PLAY_K_STRAFE_R, PLAY_K_STOP };

#ifdef SK_HAVE_SDL2
#include <SDL.h>

static const struct { const char *name; SDL_Keycode kc; int held; } keys[] = {
    {"w", SDLK_w, PLAY_K_FWD},       {"up", SDLK_UP, PLAY_K_FWD},        {"s", SDLK_s, PLAY_K_BACK},
    {"down", SDLK_DOWN, PLAY_K_BACK}, {"a", SDLK_a, PLAY_K_LEFT},        {"left", SDLK_LEFT, PLAY_K_LEFT},
    {"d", SDLK_d, PLAY_K_RIGHT},     {"right", SDLK_RIGHT, PLAY_K_RIGHT}, {"shift", SDLK_LSHIFT, PLAY_K_RUN},
    {"rshift", SDLK_RSHIFT, PLAY_K_RUN}, {"q", SDLK_q, PLAY_K_STRAFE_L}, {"e", SDLK_e, PLAY_K_STRAFE_R},
    {"space", SDLK_SPACE, PLAY_K_STOP}, {"escape", SDLK_ESCAPE, -1},     {"f1", SDLK_F1, -1},
    {"tab", SDLK_TAB, -1}, {"o", SDLK_o, -1},
};

static int key_index(SDL_Keycode kc) {
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].kc == kc) return (int)i;
    return -1;
}

/* ---- the script ---------------------------------------------------------- */

static bool parse_num(const char *tok, double lo, double hi, double *out) {
    char *end;
    if (!tok) return false;
    double v = strtod(tok, &end);
    if (end == tok || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* One line into ev; false with why. */
static bool parse_line(char *line, play_event *ev, const char **why) {
    const char *sep = " \t\r\n";
    char *save = NULL;
    char *tt = strtok_r(line, sep, &save), *kind = strtok_r(NULL, sep, &save);
    char *a = strtok_r(NULL, sep, &save), *b = strtok_r(NULL, sep, &save), *extra = strtok_r(NULL, sep, &save);
    memset(ev, 0, sizeof *ev);
    double v, w;
    if (!parse_num(tt, 0, 1e6, &ev->t)) return *why = "expected a time in seconds in [0, 1e6] first", false;
    if (!kind) return *why = "expected an event after the time (key, button, axis, click, drag, quit)", false;
    if (!strcmp(kind, "quit")) {
        ev->kind = PLAY_EV_QUIT;
        return a ? (*why = "quit takes nothing after it", false) : true;
    }
    if (extra) return *why = "too many words", false;
    if (!strcmp(kind, "key") || !strcmp(kind, "button")) {
        if (!a || !b || (strcmp(b, "down") && strcmp(b, "up"))) return *why = "expected NAME down|up", false;
        ev->down = !strcmp(b, "down");
        if (kind[0] == 'k') {
            ev->kind = PLAY_EV_KEY;
            for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
                if (!strcmp(keys[i].name, a)) return ev->code = (int)keys[i].kc, true;
            return *why = "unknown key (w a s d up down left right shift rshift q e space escape f1 tab)", false;
        }
        ev->kind = PLAY_EV_BUTTON;
        SDL_GameControllerButton gb = SDL_GameControllerGetButtonFromString(a);
        if (gb == SDL_CONTROLLER_BUTTON_INVALID) return *why = "unknown button (a b x y back start leftshoulder ...)", false;
        ev->code = (int)gb;
        return true;
    }
    if (!strcmp(kind, "axis")) {
        ev->kind = PLAY_EV_AXIS;
        SDL_GameControllerAxis ga = a ? SDL_GameControllerGetAxisFromString(a) : SDL_CONTROLLER_AXIS_INVALID;
        if (ga == SDL_CONTROLLER_AXIS_INVALID)
            return *why = "unknown axis (leftx lefty rightx righty lefttrigger righttrigger)", false;
        bool trigger = ga == SDL_CONTROLLER_AXIS_TRIGGERLEFT || ga == SDL_CONTROLLER_AXIS_TRIGGERRIGHT;
        if (!parse_num(b, trigger ? 0 : -1, 1, &v)) return *why = "expected a value in [-1, 1] (a trigger: [0, 1])", false;
        ev->code = (int)ga;
        ev->value = (float)v;
        return true;
    }
    if (!strcmp(kind, "click") || !strcmp(kind, "drag")) {
        bool click = kind[0] == 'c';
        ev->kind = click ? PLAY_EV_CLICK : PLAY_EV_DRAG;
        if (!parse_num(a, click ? 0 : -1e4, 1e4, &v) || !parse_num(b, click ? 0 : -1e4, 1e4, &w))
            return *why = click ? "expected X Y, pixels in [0, 1e4]" : "expected DX DY, pixels in [-1e4, 1e4]", false;
        ev->x = (float)v, ev->y = (float)w;
        return true;
    }
    return *why = "unknown event (key, button, axis, click, drag, quit)", false;
}

bool play_script_load(const char *path, play_script *s) {
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "skelanim: play: --script %s: cannot read\n", path);
        return false;
    }
    bool ok = play_script_read(f, path, s);
    fclose(f);
    return ok;
}

bool play_script_read(FILE *f, const char *path, play_script *s) {
    memset(s, 0, sizeof *s);
    char line[512];
    uint32_t cap = 0, ln = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        ln++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "skelanim: play: %s:%u: line too long\n", path, ln);
            ok = false;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        if (strspn(line, " \t\r\n") == strlen(line)) continue;
        play_event ev;
        const char *why = "";
        if (!parse_line(line, &ev, &why)) {
            fprintf(stderr, "skelanim: play: %s:%u: %s\n", path, ln, why);
            ok = false;
        } else if (s->n && ev.t < s->ev[s->n - 1].t) {
            fprintf(stderr, "skelanim: play: %s:%u: time %g is before the line above (%g)\n", path, ln, ev.t,
                    s->ev[s->n - 1].t);
            ok = false;
        } else if (s->n >= 100000) {
            fprintf(stderr, "skelanim: play: %s: more than 100000 events\n", path);
            ok = false;
        } else {
            if (s->n == cap) {
                cap = cap ? 2 * cap : 64;
                play_event *nv = realloc(s->ev, cap * sizeof *nv);
                if (!nv) { fprintf(stderr, "skelanim: out of memory\n"); ok = false; break; }
                s->ev = nv;
            }
            s->ev[s->n++] = ev;
            s->uses_pad |= ev.kind == PLAY_EV_AXIS || ev.kind == PLAY_EV_BUTTON;
        }
    }
    if (!ok) play_script_free(s);
    return ok;
}

void play_script_free(play_script *s) {
    free(s->ev);
    memset(s, 0, sizeof *s);
}

/* ---- devices --------------------------------------------------------------- */

bool play_input_open(play_input *in, const play_script *s, sk_error *err) {
    memset(in, 0, sizeof *in);
    in->virtual_index = -1;
    if (SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER) != 0) {
        /* no controller support: keyboard and mouse still work, unless a script needs the pad */
        if (s && s->uses_pad) {
            sk_error_set(err, SK_ERR_UNSUPPORTED, "no game controller support in SDL: %s", SDL_GetError());
            return false;
        }
        return true;
    }
    if (s && s->uses_pad) {
        int idx = SDL_JoystickAttachVirtual(SDL_JOYSTICK_TYPE_GAMECONTROLLER, SDL_CONTROLLER_AXIS_MAX,
                                            SDL_CONTROLLER_BUTTON_MAX, 0);
        SDL_GameController *gc = idx >= 0 ? SDL_GameControllerOpen(idx) : NULL;
        if (!gc) {
            sk_error_set(err, SK_ERR_UNSUPPORTED, "cannot open a virtual game controller: %s", SDL_GetError());
            if (idx >= 0) SDL_JoystickDetachVirtual(idx);
            return false;
        }
        in->virtual_index = idx;
        in->pad = gc;
        return true;
    }
    for (int i = 0; i < SDL_NumJoysticks() && !in->pad; i++)
        if (SDL_IsGameController(i)) in->pad = SDL_GameControllerOpen(i);
    return true;
}

void play_input_close(play_input *in) {
    if (in->pad) SDL_GameControllerClose(in->pad);
    if (in->virtual_index >= 0) SDL_JoystickDetachVirtual(in->virtual_index);
    in->pad = NULL;
    in->virtual_index = -1;
}

static bool push(SDL_Event *e) { return SDL_PushEvent(e) == 1; }

static bool push_mouse_button(bool down, float x, float y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
    e.button.button = SDL_BUTTON_LEFT;
    e.button.state = down ? SDL_PRESSED : SDL_RELEASED;
    e.button.clicks = 1;
    e.button.x = (Sint32)x, e.button.y = (Sint32)y;
    return push(&e);
}

static bool push_motion(float x, float y, float dx, float dy, bool left) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEMOTION;
    e.motion.x = (Sint32)x, e.motion.y = (Sint32)y;
    e.motion.xrel = (Sint32)dx, e.motion.yrel = (Sint32)dy;
    e.motion.state = left ? SDL_BUTTON_LMASK : 0;
    return push(&e);
}

bool play_script_inject(play_script *s, play_input *in, double t, sk_error *err) {
    bool ok = true;
    if (s->release_pending) {
        s->release_pending = false;
        ok = push_mouse_button(false, s->release_x, s->release_y);
    }
    while (ok && s->next < s->n && s->ev[s->next].t <= t + 1e-9) {
        const play_event *ev = &s->ev[s->next++];
        SDL_Event e;
        memset(&e, 0, sizeof e);
        switch (ev->kind) {
        case PLAY_EV_KEY:
            e.type = ev->down ? SDL_KEYDOWN : SDL_KEYUP;
            e.key.state = ev->down ? SDL_PRESSED : SDL_RELEASED;
            e.key.keysym.sym = ev->code;
            e.key.keysym.scancode = SDL_GetScancodeFromKey(ev->code);
            ok = push(&e);
            break;
        case PLAY_EV_BUTTON:
            ok = SDL_JoystickSetVirtualButton(SDL_GameControllerGetJoystick(in->pad), ev->code, ev->down ? 1 : 0) == 0;
            break;
        case PLAY_EV_AXIS: {
            double v = ev->value * (ev->value < 0 ? 32768.0 : 32767.0);
            ok = SDL_JoystickSetVirtualAxis(SDL_GameControllerGetJoystick(in->pad), ev->code, (Sint16)lrint(v)) == 0;
            break;
        }
        case PLAY_EV_CLICK:
            ok = push_motion(ev->x, ev->y, 0, 0, false) && push_mouse_button(true, ev->x, ev->y);
            s->release_pending = true, s->release_x = ev->x, s->release_y = ev->y;
            break;
        case PLAY_EV_DRAG:
            ok = push_mouse_button(true, 0, 0) && push_motion(ev->x, ev->y, ev->x, ev->y, true) &&
                 push_mouse_button(false, ev->x, ev->y);
            break;
        case PLAY_EV_QUIT:
            e.type = SDL_QUIT;
            ok = push(&e);
            break;
        }
    }
    if (!ok) sk_error_set(err, SK_ERR_UNSUPPORTED, "cannot inject a scripted event: %s", SDL_GetError());
    return ok;
}

/* ---- events and controls --------------------------------------------------- */

void play_input_poll(play_input *in, play_event_hook hook, void *user) {
    in->drag_x = in->drag_y = in->wheel = 0;
    in->toggle_panel = false;
    in->toggle_overlay = false;
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        if (e.type == SDL_QUIT) in->quit = true;
        if (e.type == SDL_CONTROLLERAXISMOTION || e.type == SDL_CONTROLLERBUTTONDOWN ||
            e.type == SDL_CONTROLLERBUTTONUP)
            in->pad_events++;
        if (e.type == SDL_CONTROLLERDEVICEADDED && !in->pad) in->pad = SDL_GameControllerOpen(e.cdevice.which);
        if (e.type == SDL_CONTROLLERBUTTONDOWN && e.cbutton.button == SDL_CONTROLLER_BUTTON_START) in->toggle_panel = true;
        if (e.type == SDL_CONTROLLERBUTTONDOWN && e.cbutton.button == SDL_CONTROLLER_BUTTON_BACK) in->quit = true;
        /* key releases always count (a key held when the mouse went over the panel) */
        if (e.type == SDL_KEYUP) {
            int k = key_index(e.key.keysym.sym);
            if (k >= 0 && keys[k].held >= 0) in->held[keys[k].held] = false;
        }
        if (e.type == SDL_MOUSEBUTTONUP && e.button.button == SDL_BUTTON_LEFT) in->dragging = false;
        if (hook && hook(user, &e)) continue;
        switch (e.type) {
        case SDL_KEYDOWN: {
            SDL_Keycode kc = e.key.keysym.sym;
            if (kc == SDLK_ESCAPE) in->quit = true;
            if ((kc == SDLK_F1 || kc == SDLK_TAB) && !e.key.repeat) in->toggle_panel = true;
            if (kc == SDLK_o && !e.key.repeat) in->toggle_overlay = true;
            int k = key_index(kc);
            if (k >= 0 && keys[k].held >= 0) in->held[keys[k].held] = true;
            break;
        }
        case SDL_MOUSEBUTTONDOWN:
            if (e.button.button == SDL_BUTTON_LEFT) in->dragging = true;
            break;
        case SDL_MOUSEMOTION:
            if (in->dragging) in->drag_x += (float)e.motion.xrel, in->drag_y += (float)e.motion.yrel;
            break;
        case SDL_MOUSEWHEEL: in->wheel += (float)e.wheel.y; break;
        default: break;
        }
    }
}

static float axis(const play_input *in, SDL_GameControllerAxis a) {
    if (!in->pad) return 0;
    Sint16 v = SDL_GameControllerGetAxis(in->pad, a);
    return v < 0 ? (float)v / 32768.0f : (float)v / 32767.0f;
}
static bool button(const play_input *in, SDL_GameControllerButton b) {
    return in->pad && SDL_GameControllerGetButton(in->pad, b);
}

/* A stick with a radial dead zone of 0.2, rescaled to [0, 1] beyond it. */
static void stick(float x, float y, float *ox, float *oy) {
    float m = hypotf(x, y);
    if (m < 0.2f) { *ox = *oy = 0; return; }
    float s = fminf((m - 0.2f) / 0.8f, 1.0f) / m;
    *ox = x * s, *oy = y * s;
}

void play_input_controls(const play_input *in, bool strafe_stick, double dt, play_controls *out) {
    memset(out, 0, sizeof *out);
    const bool *h = in->held;
    float kx = (float)h[PLAY_K_RIGHT] - (float)h[PLAY_K_LEFT], ky = (float)h[PLAY_K_FWD] - (float)h[PLAY_K_BACK];
    float km = hypotf(kx, ky);
    if (km > 0) kx /= km, ky /= km;
    float sx, sy;
    stick(axis(in, SDL_CONTROLLER_AXIS_LEFTX), -axis(in, SDL_CONTROLLER_AXIS_LEFTY), &sx, &sy);
    float strafe = (float)h[PLAY_K_STRAFE_R] - (float)h[PLAY_K_STRAFE_L];
    strafe += (float)button(in, SDL_CONTROLLER_BUTTON_DPAD_RIGHT) - (float)button(in, SDL_CONTROLLER_BUTTON_DPAD_LEFT);
    if (strafe_stick) strafe += sx, sx = 0;
    out->move_x = kx + sx, out->move_y = ky + sy;
    float m = hypotf(out->move_x, out->move_y);
    if (m > 1) out->move_x /= m, out->move_y /= m;
    out->strafe = fmaxf(-1.0f, fminf(1.0f, strafe));
    out->run = h[PLAY_K_RUN] || axis(in, SDL_CONTROLLER_AXIS_TRIGGERRIGHT) > 0.5f ||
               button(in, SDL_CONTROLLER_BUTTON_LEFTSTICK);
    out->stop = h[PLAY_K_STOP] || button(in, SDL_CONTROLLER_BUTTON_B);
    float rx, ry;
    stick(axis(in, SDL_CONTROLLER_AXIS_RIGHTX), axis(in, SDL_CONTROLLER_AXIS_RIGHTY), &rx, &ry);
    /* the mouse as in view (0.4 and 0.3 degrees a pixel); the stick 150 degrees a second */
    out->orbit_x = -in->drag_x * 0.4f - rx * 150.0f * (float)dt;
    out->orbit_y = in->drag_y * 0.3f + ry * 90.0f * (float)dt;
    out->zoom = in->wheel;
}

#else /* no SDL2 */

bool play_script_load(const char *path, play_script *s) {
    memset(s, 0, sizeof *s);
    fprintf(stderr, "skelanim: play: --script %s: this skelanim was built without SDL2\n", path);
    return false;
}
bool play_script_read(FILE *f, const char *path, play_script *s) {
    (void)f;
    return play_script_load(path, s);
}
void play_script_free(play_script *s) { memset(s, 0, sizeof *s); }
bool play_input_open(play_input *in, const play_script *s, sk_error *err) {
    (void)s;
    memset(in, 0, sizeof *in);
    sk_error_set(err, SK_ERR_UNSUPPORTED, "this skelanim was built without SDL2 (Debian: libsdl2-dev)");
    return false;
}
void play_input_close(play_input *in) { (void)in; }
bool play_script_inject(play_script *s, play_input *in, double t, sk_error *err) {
    (void)s, (void)in, (void)t, (void)err;
    return false;
}
void play_input_poll(play_input *in, play_event_hook hook, void *user) { (void)in, (void)hook, (void)user; }
void play_input_controls(const play_input *in, bool strafe_stick, double dt, play_controls *out) {
    (void)in, (void)strafe_stick, (void)dt;
    memset(out, 0, sizeof *out);
}
#endif
