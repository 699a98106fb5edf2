/* skelanim command-line tool: the SDL2 window (window.h) of `skelanim view`
 * and `skelanim demo --window`: an OpenGL 3.3 core context (through
 * libepoxy), input events, scripted key presses. Without SDL2 at build time
 * (SK_HAVE_SDL2 undefined) a window cannot open and says why. */
#include "window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Orbit camera state shared by view and demo. */
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

#ifdef SK_HAVE_SDL2
#include <SDL.h>
#include <epoxy/gl.h>

struct cli_window {
    SDL_Window *win;
    SDL_GLContext ctx;
    bool dragging, panning;
    cli_event_hook hook;
    void *hook_user;
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
        if (cw->hook && cw->hook(cw->hook_user, &e)) continue;
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
            else if (kc == SDLK_F1) k = CLI_KEY_F1;
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

bool cli_window_supported(void) { return true; }
void *cli_window_sdl(cli_window *cw) { return cw ? cw->win : NULL; }
void *cli_window_gl_context(cli_window *cw) { return cw ? cw->ctx : NULL; }
void cli_window_set_hook(cli_window *cw, cli_event_hook hook, void *user) { cw->hook = hook, cw->hook_user = user; }

/* Scripted input for --keys (tests, recorded sessions): the named key is
 * pushed into SDL's event queue as a key press, so it goes through the same
 * cli_window_poll() mapping as a real one. Returns false for an unknown name. */
static bool key_code(const char *name, SDL_Keycode *kc, Uint16 *mod) {
    static const struct { const char *name; SDL_Keycode kc; } named[] = {
        {"space", SDLK_SPACE}, {"left", SDLK_LEFT},   {"right", SDLK_RIGHT}, {"up", SDLK_UP},
        {"down", SDLK_DOWN},   {"tab", SDLK_TAB},     {"backtab", SDLK_TAB}, {"plus", SDLK_KP_PLUS},
        {"minus", SDLK_KP_MINUS}, {"escape", SDLK_ESCAPE}, {"f1", SDLK_F1},
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

bool cli_window_key_known(const char *name) {
    SDL_Keycode kc;
    Uint16 mod;
    return key_code(name, &kc, &mod);
}

bool cli_window_push_key(cli_window *cw, const char *name, sk_error *err) {
    (void)cw;
    if (push_key(name)) return true;
    sk_error_set(err, SK_ERR_UNSUPPORTED, "cannot queue key '%s': %s", name, SDL_GetError());
    return false;
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
bool cli_window_supported(void) { return false; }
void *cli_window_sdl(cli_window *cw) { (void)cw; return NULL; }
void *cli_window_gl_context(cli_window *cw) { (void)cw; return NULL; }
void cli_window_set_hook(cli_window *cw, cli_event_hook hook, void *user) { (void)cw, (void)hook, (void)user; }
bool cli_window_key_known(const char *name) { (void)name; return false; }
bool cli_window_push_key(cli_window *cw, const char *name, sk_error *err) {
    (void)cw, (void)name;
    sk_error_set(err, SK_ERR_UNSUPPORTED, "this skelanim was built without SDL2 (Debian: libsdl2-dev)");
    return false;
}
#endif
