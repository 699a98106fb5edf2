/* skelanim play: the player's input (cli/play_input.c) — keyboard, mouse and
 * game controllers through SDL2's game controller API — and scripted input
 * for tests: a text file of timed events pushed into SDL's event queue (keys,
 * mouse) or set on an SDL virtual joystick opened as a game controller, so a
 * script goes through the same path as a person at the keyboard or the pad.
 *
 * Script: one event a line, "#" starts a comment, times in seconds of
 * simulated time, not decreasing:
 *   T key NAME down|up      NAME: w a s d up down left right shift q e space
 *                           escape f1 tab
 *   T button NAME down|up   a game controller button, SDL's names (a b x y
 *                           back start leftstick rightstick leftshoulder
 *                           rightshoulder dpup dpdown dpleft dpright)
 *   T axis NAME VALUE       leftx lefty rightx righty lefttrigger
 *                           righttrigger; VALUE in [-1, 1] (triggers [0, 1])
 *   T click X Y             a left click at window pixel (X, Y) (down now,
 *                           up the next frame)
 *   T drag DX DY            a left-button drag by (DX, DY) pixels
 *   T quit                  closes the window
 * Built without SDL2, nothing here opens (play refuses to run). */
#ifndef SK_CLI_PLAY_INPUT_H
#define SK_CLI_PLAY_INPUT_H

#include <stdio.h>
#include "skelanim.h"

typedef enum play_ev_kind { PLAY_EV_KEY, PLAY_EV_BUTTON, PLAY_EV_AXIS, PLAY_EV_CLICK, PLAY_EV_DRAG, PLAY_EV_QUIT } play_ev_kind;
typedef struct play_event {
    double t;
    play_ev_kind kind;
    int code;           /* the key's SDL keycode, the button's or axis' SDL game controller index */
    bool down;
    float value, x, y;  /* axis value; click position, drag offset */
} play_event;

typedef struct play_script {
    play_event *ev;
    uint32_t n, next;
    bool uses_pad;      /* has button or axis events: a virtual controller is attached */
    bool release_pending; /* a click's button-up goes out next frame */
    float release_x, release_y;
} play_script;

/* Reads and checks a script (names, numbers, order); false after printing
 * "skelanim: play: FILE:LINE: ..." */
bool play_script_load(const char *path, play_script *s);
/* The same from an open stream (name: for the messages). */
bool play_script_read(FILE *f, const char *name, play_script *s);
void play_script_free(play_script *s);

/* What the player asks for this frame, relative to the camera. */
typedef struct play_controls {
    float move_x, move_y;   /* right, forward (camera): |(x, y)| <= 1 */
    float strafe;           /* -1 left .. 1 right of the character */
    bool run, stop;
    float orbit_x, orbit_y; /* camera: degrees of azimuth and elevation to add this frame */
    float zoom;             /* wheel notches */
} play_controls;

typedef struct play_input {
    bool held[16];          /* keys by PLAY_K_* (play_input.c) */
    void *pad;              /* SDL_GameController*: the first one attached, or the script's virtual one */
    int virtual_index;      /* the script's virtual joystick device index, or -1 */
    float drag_x, drag_y, wheel;
    bool dragging;
    bool quit, toggle_panel, toggle_overlay; /* this frame: Esc; F1/Tab/Start; O (the debugging view) */
    uint32_t pad_events;    /* game controller events seen (axis and button) */
} play_input;

/* Starts the game controller subsystem (the window must be open); with a
 * script that uses the pad, attaches and opens a virtual controller. */
bool play_input_open(play_input *in, const play_script *s, sk_error *err);
void play_input_close(play_input *in);
/* Pushes the script's events due at time t (s). */
bool play_script_inject(play_script *s, play_input *in, double t, sk_error *err);
/* Reads the pending events; hook (may be NULL) sees each one first and may
 * take it (the panel under the mouse). */
typedef bool (*play_event_hook)(void *user, const void *sdl_event);
void play_input_poll(play_input *in, play_event_hook hook, void *user);
/* The frame's controls from the keys held and the controller's state;
 * strafe_stick: the left stick's x strafes (the character has strafe
 * clips) instead of steering. dt: the frame's length (stick orbit speed). */
void play_input_controls(const play_input *in, bool strafe_stick, double dt, play_controls *out);

#endif
