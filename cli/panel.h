/* skelanim command-line tool: the on-screen panel of `view` and `play`, a
 * Dear ImGui window drawn over the scene (cli/panel_imgui.cpp, the tool's one
 * C++ file, through Debian's libimgui-dev and its SDL2 and OpenGL 3
 * backends). Built without it (SK_PANEL=OFF, or AUTO without imgui),
 * cli/panel_stub.c opens a panel that draws nothing and takes no input.
 *
 * The panel edits a panel_state the command owns: each frame the command
 * fills it, panel_frame draws it and writes back what the user changed;
 * nothing else is kept between frames but the panel's own window. The
 * overlay toggles are read by the debugging overlays of the locomotion
 * drawing. Not thread-safe: one panel, on the thread of the window. */
#ifndef SK_CLI_PANEL_H
#define SK_CLI_PANEL_H

#include "window.h"

/* Overlay toggles (checkboxes). */
typedef struct panel_toggles {
    bool show_footsteps, show_keytimes, show_weights, show_path;
} panel_toggles;

#define PANEL_MAX_WEIGHTS 8
typedef struct panel_state {
    /* clips (view: select and scrub; play: shown) */
    const char *const *clip_names;  /* clip_count names */
    uint32_t clip_count;
    int32_t clip;                   /* selected: -1 none (rest pose); in/out */
    double time, duration;          /* s: the clip's time (in/out: the slider scrubs), its length */
    double speed;                   /* playback speed (in/out) */
    bool paused;                    /* in/out */
    /* locomotion (play) */
    bool locomotion;
    float walk_speed, run_speed;    /* m/s (in/out) */
    float turn_rate_deg;            /* deg/s (in/out) */
    float current_speed;            /* m/s, the character's (shown) */
    const char *mode;               /* "idle", "walking", ... (shown), or NULL */
    const float *weights;           /* the locomotor's clip weights (shown as bars), weight_count */
    const char *const *weight_names;/* their clips' names */
    uint32_t weight_count;
    panel_toggles toggles;          /* in/out */
    /* timing (shown) */
    double frame_ms, anim_ms;       /* ms per frame: all of it, the animation part */
    double anim_time;               /* s of animation (play: simulated time) */
} panel_state;

typedef struct panel panel;
/* True when the build has the ImGui panel (false: the stub). */
bool panel_supported(void);
/* A panel on the window (its GL context current), shown when visible. NULL
 * and a message in err when it cannot start (the stub never fails). */
panel *panel_create(cli_window *win, bool visible, sk_error *err);
void panel_destroy(panel *p);
void panel_set_visible(panel *p, bool visible);
bool panel_visible(const panel *p);
/* An SDL_Event; true when the panel takes it (the mouse over the panel). */
bool panel_event(panel *p, const void *sdl_event);
/* Builds and draws the panel over the current framebuffer (w x h pixels)
 * when visible; writes back what the user changed in s. */
void panel_frame(panel *p, panel_state *s, int w, int h);
/* The window rectangle of a widget drawn in the last frame, in pixels
 * (x, y, w, h), by label ("show_footsteps", "speed", ...; the labels
 * panel_imgui.cpp gives): false when not drawn (for scripted clicks). */
bool panel_item_rect(const panel *p, const char *label, float rect[4]);
/* The panel's window rectangle in the last frame; false when not drawn. */
bool panel_window_rect(const panel *p, float rect[4]);

#endif
