/* skelanim command-line tool: the SDL2 window of `view` and `demo --window`
 * (cli/window.c): an OpenGL 3.3 core context, input events, and scripted
 * key presses for tests. Built without SDL2 (SK_HAVE_SDL2 undefined), every
 * window fails to open with "this skelanim was built without SDL2". */
#ifndef SK_CLI_WINDOW_H
#define SK_CLI_WINDOW_H

#include "skelanim.h"

typedef struct cli_window cli_window;
enum { CLI_KEY_LEFT = 1001, CLI_KEY_RIGHT, CLI_KEY_UP, CLI_KEY_DOWN, CLI_KEY_BACKTAB, CLI_KEY_F1 };
/* The input of one frame. */
typedef struct cli_input {
    int keys[32]; /* ASCII for printable keys, CLI_KEY_* for the others */
    int nkeys;
    float drag_x, drag_y, pan_x, pan_y, wheel;
} cli_input;
/* An orbit camera: target, azimuth and elevation (degrees), distance. */
typedef struct cli_orbit { float target[3], az, el, dist; } cli_orbit;

/* False when the tool was built without SDL2. */
bool cli_window_supported(void);
/* NULL and a message in err without a display, SDL2 or an OpenGL 3.3 core context. */
cli_window *cli_window_open(const char *title, int w, int h, sk_error *err);
void cli_window_close(cli_window *cw);
void cli_window_begin(cli_window *cw, int *w, int *h); /* binds the window's framebuffer; drawable size */
void cli_window_read(cli_window *cw, unsigned char *rgb, int w, int h); /* the back buffer, top row first */
void cli_window_swap(cli_window *cw);
void cli_window_title(cli_window *cw, const char *title);
const char *cli_window_get_title(cli_window *cw);
bool cli_window_poll(cli_window *cw, cli_input *in); /* false: closed (window, Esc or q) */
/* The SDL_Window and its OpenGL context (for the on-screen panel, panel.h); NULL without SDL2. */
void *cli_window_sdl(cli_window *cw);
void *cli_window_gl_context(cli_window *cw);
/* hook sees every event cli_window_poll reads (an SDL_Event) before it is
 * mapped; returning true takes it (the panel under the mouse). NULL: none. */
typedef bool (*cli_event_hook)(void *user, const void *sdl_event);
void cli_window_set_hook(cli_window *cw, cli_event_hook hook, void *user);
/* Scripted input (view --keys): a key name is one of space left right up down
 * tab backtab plus minus escape f1, a-z, 0-9, or the mouse's drag pan wheelup
 * wheeldown. push_key queues it as a real event, so it goes through
 * cli_window_poll like a real one. */
bool cli_window_key_known(const char *name);
bool cli_window_push_key(cli_window *cw, const char *name, sk_error *err);
/* Mouse drag orbits, right drag pans, the wheel zooms. */
void cli_orbit_apply(cli_orbit *o, const cli_input *in);

#endif
