/* skelanim play: a character under the player's control in a window. The
 * keys, the mouse or a game controller (cli/play_input.c) give a direction
 * relative to the camera; the character's ground point and facing are
 * integrated from it with the path follower's acceleration and turn-rate
 * limits (cli/play_motion.c) and fed to the locomotor (or the IK-only
 * walker) every frame, as `locomote` feeds the path follower's point
 * (cli/loco_run.c: the same setup, state machine and foot metrics). The
 * camera follows the character. --script drives it from a file of timed
 * events for tests (docs/play.md). */
#include "cli.h"
#include "loco_overlay.h"
#include "loco_view.h"
#include "panel.h"
#include "play_input.h"
#include "play_motion.h"
#include "window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEG (3.14159265358979 / 180.0)

typedef struct play_args {
    const char *character, *terrain, *script, *idle, *graph, *trace, *screenshot;
    cli_list clips, from, from_reversed;
    double speed, run_speed, turn_rate, acceleration, fps, scale, from_scale;
    uint32_t frames, size[2];
    int panel;
    bool procedural, json;
} play_args;

/* What a run draws with: the renderer, the character's model (or bones), the ground. */
typedef struct play_scene {
    skr_renderer *rn;
    skr_model *model;
    sk_mat4 *pal;
    skr_terrain *ground;
    float ground_c[2], ground_r;
    bool ground_mesh;
} play_scene;

static bool scene_ground(play_scene *sc, const cli_terrain *terrain, float x, float z, float y, sk_error *err) {
    if (sc->ground && (sc->ground_mesh || hypotf(x - sc->ground_c[0], z - sc->ground_c[1]) < 0.4f * sc->ground_r))
        return true;
    skr_terrain_destroy(sc->ground);
    sc->ground = NULL;
    sc->ground_c[0] = x, sc->ground_c[1] = z, sc->ground_r = 15.0f;
    if (terrain && terrain->kind == CLI_TERRAIN_MESH) {
        sc->ground_mesh = true;
        return skr_terrain_create_mesh(terrain->asset, &sc->ground, err) == SK_OK;
    }
    sk_terrain_shape flat_s;
    sk_terrain flat_t;
    const sk_terrain *tt = terrain ? &terrain->terrain : NULL;
    if (!tt) flat_t = sk_terrain_flat(&flat_s, 0), tt = &flat_t;
    float r = sc->ground_r;
    skr_terrain_area area = {x - r, z - r, x + r, z + r, y + 30.0f, y - 60.0f, 0};
    return skr_terrain_create_heightfield(tt, &area, &sc->ground, err) == SK_OK;
}

static const char *mode_name(const loco_char *c) {
    if (c->legged) return sk_legged_get_state(c->legged)->walking ? "walking" : "standing";
    if (c->proc) {
        static const char *const names[] = {"standing", "walking", "crouching", "airborne", "landing", "fallen",
                                            "hanging"};
        unsigned m = (unsigned)sk_procedural_get_state(c->proc)->mode;
        return m < 7 ? names[m] : "?";
    }
    static const char *const names[] = {"standing", "moving", "stopping"};
    unsigned m = (unsigned)sk_locomotor_get_state(c->loco)->mode;
    return m < 3 ? names[m] : "?";
}

static float char_speed(const loco_char *c) {
    sk_vec3 v = c->legged ? sk_legged_get_state(c->legged)->velocity
                : c->proc ? sk_procedural_get_state(c->proc)->velocity
                          : sk_locomotor_get_state(c->loco)->velocity;
    return hypotf(v.x, v.z);
}

/* The character's height above its ground point (for the camera). */
static float char_height(const loco_char *c) {
    loco_feet ft;
    loco_char_feet(c, &ft);
    float top = ft.root.y;
    for (uint32_t j = 0; j < c->asset->skeleton->joint_count; j++) top = fmaxf(top, c->world[j].m[13]);
    float h = top - ft.root.y;
    return h > 0.05f && isfinite(h) ? h : 1.7f;
}

static void print_end(const play_args *a, const loco_char *c, const play_body *b, const loco_metrics *m, double t,
                      const play_input *in, const panel *pn, const panel_toggles *tg) {
    loco_feet ft;
    loco_char_feet(c, &ft);
    if (!a->json) {
        printf("play: %s, %u frames (%.2f s): at (%.3f, %.3f, %.3f) facing %.1f degrees, %.2f m walked\n",
               a->character, m->frames, t, ft.root.x, ft.root.y, ft.root.z, b->yaw / DEG, b->walked);
        printf("  slide        max %.3f cm, mean %.3f cm over %u stance runs\n", 100 * m->slide_max,
               m->runs ? 100 * m->slide_sum / m->runs : 0.0, m->runs);
        printf("  contact      max %.3f cm (in stance)\n", 100 * m->contact_max);
        printf("  penetration  max %.3f cm\n", 100 * m->penetration_max);
        return;
    }
    printf("{\"frames\":%u,\"seconds\":%.4f,\"position\":[%.4f,%.4f,%.4f],\"target\":[%.4f,%.4f],\"yaw_deg\":%.3f,"
           "\"walked_m\":%.4f,\"speed\":%.4f,\"mode\":\"%s\",",
           m->frames, t, ft.root.x, ft.root.y, ft.root.z, b->x, b->z, b->yaw / DEG, b->walked, char_speed(c),
           mode_name(c));
    printf("\"stance_runs\":%u,\"slide_max_cm\":%.4f,\"slide_mean_cm\":%.4f,\"contact_max_cm\":%.4f,"
           "\"contact_mean_cm\":%.4f,\"penetration_max_cm\":%.4f,\"unreached\":%u,\"pad_events\":%u,",
           m->runs, 100 * m->slide_max, m->runs ? 100 * m->slide_sum / m->runs : 0.0, 100 * m->contact_max,
           m->contact_n ? 100 * m->contact_sum / m->contact_n : 0.0, 100 * m->penetration_max, m->unreached,
           in->pad_events);
    printf("\"panel\":{\"built\":%s,\"visible\":%s,\"show_footsteps\":%s,\"show_keytimes\":%s,\"show_weights\":%s,"
           "\"show_path\":%s",
           panel_supported() ? "true" : "false", panel_visible(pn) ? "true" : "false",
           tg->show_footsteps ? "true" : "false", tg->show_keytimes ? "true" : "false",
           tg->show_weights ? "true" : "false", tg->show_path ? "true" : "false");
    static const char *const items[] = {"show_footsteps", "show_keytimes", "show_weights", "show_path", "walk_speed"};
    float r[4];
    if (panel_window_rect(pn, r)) printf(",\"rect\":[%.1f,%.1f,%.1f,%.1f]", r[0], r[1], r[2], r[3]);
    printf(",\"items\":{");
    bool first = true;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
        if (panel_item_rect(pn, items[i], r)) {
            printf("%s\"%s\":[%.1f,%.1f,%.1f,%.1f]", first ? "" : ",", items[i], r[0], r[1], r[2], r[3]);
            first = false;
        }
    printf("}}}\n");
}

typedef struct play_run {
    const play_args *a;
    cli_window *win;
    play_scene sc;
    panel *pn;
    panel_toggles toggles;
    play_input in;
    play_script script;
    bool scripted;
    const cli_terrain *terrain;
    FILE *trace;
    loco_overlay *ov; /* the locomotion debugging view (the clips' locomotor) */
} play_run;

static bool panel_hook(void *user, const void *ev) { return panel_event(user, ev); }

/* The frames until the window closes, the script quits or --frames ran out. */
static bool play_loop(play_run *r, loco_char *c, sk_error *err) {
    const play_args *a = r->a;
    play_limits lim = {(float)a->speed, (float)a->run_speed, (float)(a->turn_rate * DEG), (float)a->acceleration};
    play_body body;
    play_body_reset(&body, 0, 0, 0);
    if (!loco_char_reset(c, 0, 0, 0)) return false;
    loco_metrics m;
    loco_metrics_init(&m, c->leg_count);
    rec_ctx rec;
    loco_record_init(&rec, r->trace, 0);
    cli_orbit orbit = {{0, 0, 0}, 180.0f, 15.0f, 0};
    float height = 0;
    bool fixed = r->scripted || a->frames > 0 || a->fps > 0;
    double fps = a->fps > 0 ? a->fps : 60.0, t = 0, last = cli_now(), frame_ms = 0, anim_ms = 0;
    bool strafe_stick = false;
    for (uint32_t i = 0; i < c->nclips; i++) strafe_stick |= strstr(sk_clip_name(c->clips[i]), "strafe") != NULL;
    const char *names[LOCO_MAX_CLIPS];
    for (uint32_t i = 0; i < c->nclips; i++) names[i] = c->label[i];
    bool ok = true;
    for (uint32_t frame = 0; a->frames == 0 || frame < a->frames; frame++) {
        double now = cli_now(), dt = fixed ? 1.0 / fps : fmin(fmax(now - last, 1e-3), 0.1);
        last = now;
        if (r->scripted && !play_script_inject(&r->script, &r->in, t, err)) return false;
        play_input_poll(&r->in, panel_hook, r->pn);
        if (r->in.quit) break;
        if (r->in.toggle_panel) panel_set_visible(r->pn, !panel_visible(r->pn));
        play_controls pc;
        play_input_controls(&r->in, strafe_stick, dt, &pc);
        orbit.az += pc.orbit_x;
        orbit.el = fminf(fmaxf(orbit.el + pc.orbit_y, -10.0f), 80.0f);
        if (orbit.dist > 0) orbit.dist = fminf(fmaxf(orbit.dist * powf(0.9f, pc.zoom), 0.5f), 200.0f);
        /* camera-relative: the camera looks along azimuth + 180 degrees; its right is 90 degrees clockwise */
        float az = orbit.az * (float)DEG;
        float fx = -sinf(az), fz = -cosf(az), rx = cosf(az), rz = -sinf(az);
        play_intent it = {pc.move_y * fx + pc.move_x * rx, pc.move_y * fz + pc.move_x * rz,
                          hypotf(pc.move_x, pc.move_y), pc.strafe, pc.run, pc.stop};
        double a0 = cli_now();
        play_body_step(&body, &lim, &it, dt);
        t += dt;
        if (!loco_char_step(c, dt, body.x, body.z, body.yaw)) return false;
        anim_ms = 0.9 * anim_ms + 0.1 * (cli_now() - a0) * 1e3;
        loco_metrics_frame(&m, c);
        if (r->trace && !loco_record(&rec, c, t)) return false;
        loco_feet ft;
        loco_char_feet(c, &ft);
        if (height == 0) {
            height = char_height(c);
            orbit.dist = 2.6f * height + 1.0f;
        }
        orbit.target[0] = ft.root.x, orbit.target[1] = ft.root.y + 0.55f * height, orbit.target[2] = ft.root.z;
        int fw, fh;
        cli_window_begin(r->win, &fw, &fh);
        /* flat ground: the renderer's grid; else the terrain's triangles around the character */
        bool flat = !r->terrain || r->terrain->kind == CLI_TERRAIN_FLAT;
        if (!flat && !scene_ground(&r->sc, r->terrain, ft.root.x, ft.root.z, ft.root.y, err)) return false;
        skr_camera cam = {0};
        skr_camera_orbit(&cam, orbit.target, orbit.az, orbit.el, orbit.dist, fw, fh);
        float gy = r->terrain ? (float)r->terrain->params[0] : 0.0f;
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, flat, gy, 60.0f, {0, 0}};
        skr_begin_frame(r->sc.rn, &fd);
        if (!flat)
            skr_draw_terrain(r->sc.rn, r->sc.ground, r->sc.ground_c, r->sc.ground_mesh ? 0 : r->sc.ground_r,
                             fd.background);
        if (r->sc.model) {
            skr_model_palette(r->sc.model, c->world, r->sc.pal);
            skr_draw_desc dd = {r->sc.model, 1, r->sc.pal, NULL, NULL};
            skr_draw_model(r->sc.rn, &dd);
        } else {
            const float ink[3] = {0.1f, 0.12f, 0.2f};
            skr_draw_skeleton(r->sc.rn, c->asset->skeleton, c->world, ink);
        }
        /* The debugging view (the panel's toggles; O flips them all). */
        if (r->in.toggle_overlay) {
            bool on = !(r->toggles.show_footsteps || r->toggles.show_keytimes || r->toggles.show_weights ||
                        r->toggles.show_path);
            r->toggles.show_footsteps = r->toggles.show_keytimes = r->toggles.show_weights = r->toggles.show_path = on;
        }
        if (r->ov && c->loco) {
            loco_overlay_trail_add(r->ov, ft.root);
            loco_overlay_toggles ot = {r->toggles.show_footsteps, r->toggles.show_keytimes, r->toggles.show_weights,
                                       r->toggles.show_path};
            loco_overlay_frame of;
            if ((ot.footsteps || ot.keytimes || ot.weights || ot.path) && loco_view_overlay_frame(c, t, &of))
                loco_overlay_draw(r->ov, &cam, &of, ot, fw, fh);
        }
        panel_state ps;
        memset(&ps, 0, sizeof ps);
        ps.clip = -1, ps.speed = 1; /* no clip list: the locomotor picks */
        ps.locomotion = true;
        ps.walk_speed = lim.walk_speed, ps.run_speed = lim.run_speed, ps.turn_rate_deg = (float)(lim.turn_rate / DEG);
        ps.current_speed = char_speed(c), ps.mode = mode_name(c);
        if (c->loco) ps.weights = sk_locomotor_weights(c->loco), ps.weight_count = c->nclips, ps.weight_names = names;
        ps.toggles = r->toggles;
        ps.frame_ms = frame_ms, ps.anim_ms = anim_ms, ps.anim_time = t;
        panel_frame(r->pn, &ps, fw, fh);
        r->toggles = ps.toggles;
        /* the panel's sliders, within the options' bounds */
        lim.walk_speed = fminf(fmaxf(ps.walk_speed, 0.05f), 10.0f);
        lim.run_speed = fminf(fmaxf(ps.run_speed, 0.05f), 10.0f);
        lim.turn_rate = (float)(fminf(fmaxf(ps.turn_rate_deg, 1.0f), 3600.0f) * DEG);
        if (a->screenshot && a->frames && frame + 1 == a->frames) {
            unsigned char *rgb = malloc((size_t)fw * (size_t)fh * 3);
            if (rgb) cli_window_read(r->win, rgb, fw, fh);
            ok = rgb && skr_write_image(a->screenshot, rgb, fw, fh, err) == SK_OK;
            free(rgb);
            if (!ok) return false;
            if (!a->json) printf("wrote %s (%dx%d)\n", a->screenshot, fw, fh);
        }
        cli_window_swap(r->win);
        frame_ms = 0.9 * frame_ms + 0.1 * (cli_now() - now) * 1e3;
    }
    loco_metrics_finish(&m);
    print_end(a, c, &body, &m, t, &r->in, r->pn, &r->toggles);
    return ok;
}

static int cmd_play(int argc, char **argv) {
    if (!cli_window_supported() && !cli_asks_help(argc, argv)) {
        fprintf(stderr, "skelanim: play: this skelanim was built without SDL2 (Debian: libsdl2-dev)\n");
        return 1;
    }
    play_args a;
    memset(&a, 0, sizeof a);
    cli_seen seen;
    int prc = cli_parse(&cli_cmd_play, argc, argv, &a, &seen);
    if (prc != CLI_CONTINUE) return prc;
    if (a.screenshot && !a.frames) {
        fprintf(stderr, "skelanim: play: --screenshot needs --frames N (the last frame is written)\n");
        return 1;
    }
    loco_setup setup = {0};
    if (!loco_setup_from(&setup, a.from.v, a.from.n, a.from_reversed.v, a.from_reversed.n, a.from_scale,
                         cli_given(&seen, "--from-scale"), a.procedural, "play: "))
        return 1;
    play_run r;
    memset(&r, 0, sizeof r);
    r.a = &a;
    if (a.script) {
        if (!play_script_load(a.script, &r.script)) return 1;
        r.scripted = true;
    }
    sk_error err = {0};
    cli_terrain *terrain = NULL;
    if (a.terrain && cli_terrain_parse(a.terrain, &terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        play_script_free(&r.script);
        return 1;
    }
    r.terrain = terrain;
    setup.character = a.character;
    for (uint32_t i = 0; i < a.clips.n; i++) setup.clips[setup.nclips++] = a.clips.v[i];
    /* The mannequin drives with its whole clip set: backward and sideways
     * too, through the direction blend (docs/locomotion.md). */
    static const char *const mannequin_set[] = {"walk", "run", "walk_back", "strafe_left", "strafe_right"};
    bool from = a.from.n || a.from_reversed.n; /* clips from other files: the character's own only by --clips */
    if (!a.clips.n && !a.procedural && !from && !strcmp(a.character, SK_CLI_MANNEQUIN))
        for (uint32_t i = 0; i < 5; i++) setup.clips[setup.nclips++] = mannequin_set[i];
    setup.idle = a.idle, setup.graph = a.graph, setup.scale = a.scale, setup.procedural = a.procedural;
    setup.terrain = terrain ? &terrain->terrain : NULL;
    loco_char c;
    int rc = 1;
    bool have_char = loco_char_create(&setup, &c);
    if (!have_char) goto done;
    if (a.trace && !(r.trace = fopen(a.trace, "w"))) {
        fprintf(stderr, "skelanim: play: --trace %s: cannot write\n", a.trace);
        goto done;
    }
    if (!(r.win = cli_window_open("skelanim play", (int)a.size[0], (int)a.size[1], &err))) goto fail;
    if (skr_renderer_create(&r.sc.rn, &err) != SK_OK) goto fail;
    if (c.asset->mesh_count && (!a.procedural || c.legged)) { /* a creature: its mesh */
        if (skr_model_create(c.asset, 0, &r.sc.model, &err) != SK_OK) goto fail;
        if (!(r.sc.pal = malloc(sizeof(sk_mat4) * (skr_model_palette_size(r.sc.model) + 1)))) goto fail;
    }
    if (!(r.pn = panel_create(r.win, a.panel == 0, &err))) { /* play goes on without it, unless asked for */
        if (a.panel == 0) goto fail;
        fprintf(stderr, "skelanim: play: no panel: %s\n", err.message);
        err.message[0] = 0;
    }
    if (c.loco && !(r.ov = loco_overlay_create(&err))) goto fail;
    if (!play_input_open(&r.in, r.scripted ? &r.script : NULL, &err)) goto fail;
    if (!play_loop(&r, &c, &err)) {
        if (err.message[0]) goto fail;
        goto done;
    }
    if (r.trace) {
        FILE *f = r.trace;
        r.trace = NULL;
        if (fclose(f) != 0) {
            fprintf(stderr, "skelanim: play: --trace %s: write failed\n", a.trace);
            goto done;
        }
    }
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: play: %s\n", err.message[0] ? err.message : "failed");
done:
    if (r.trace) fclose(r.trace);
    play_input_close(&r.in);
    loco_overlay_destroy(r.ov);
    panel_destroy(r.pn);
    skr_terrain_destroy(r.sc.ground);
    skr_model_destroy(r.sc.model);
    free(r.sc.pal);
    skr_renderer_destroy(r.sc.rn);
    cli_window_close(r.win);
    if (have_char) loco_char_destroy(&c);
    cli_terrain_destroy(terrain);
    play_script_free(&r.script);
    return rc;
}

static const cli_opt play_opts[] = {
    {"--terrain", CLI_STRING(play_args, terrain), .meta = "SPEC", .help = "the ground, as locomote --terrain",
     .dflt_text = "flat"},
    {"--procedural", CLI_FLAG(play_args, procedural),
     .help = "the IK-only walker (seed 004): no clips, legs and arms by inverse kinematics"},
    {"--speed", CLI_REAL(play_args, speed), .meta = "M/S", .min = 0.05, .max = 10, .dflt = "1.4",
     .help = "the walking speed"},
    {"--run-speed", CLI_REAL(play_args, run_speed), .meta = "M/S", .min = 0.05, .max = 10, .dflt = "3",
     .help = "the running speed (Shift, the right trigger)"},
    {"--turn-rate", CLI_REAL(play_args, turn_rate), .meta = "DEG/S", .min = 1, .max = 3600, .dflt = "90",
     .help = "the fastest turn, as locomote --turn-rate"},
    {"--acceleration", CLI_REAL(play_args, acceleration), .meta = "M/S2", .min = 0.05, .max = 100, .dflt = "2",
     .help = "speeding up and braking, as the path follower"},
    {"--clips", CLI_LIST_OF(CLI_KIND_STRING, play_args, clips, CLI_GREEDY), .meta = "NAME...",
     .max_count = LOCO_MAX_CLIPS, .help = "the cyclic clips to analyse and blend by speed and direction",
     .dflt_text = "walk run; the mannequin: walk run walk_back strafe_left strafe_right"},
    {"--from", CLI_LIST_OF(CLI_KIND_STRING, play_args, from, 0), .meta = "FILE[:CLIP]", .max_count = LOCO_MAX_CLIPS,
     .help = "a walk, run or strafe from another file and skeleton (repeatable), as locomote --from: retargeted onto "
             "CHARACTER (with --from and no --clips, the character's own clips are not used)"},
    {"--from-reversed", CLI_LIST_OF(CLI_KIND_STRING, play_args, from_reversed, 0), .meta = "FILE[:CLIP]",
     .max_count = LOCO_MAX_CLIPS, .help = "as --from, the clip played in reverse: a captured walk as the backward walk"},
    {"--from-scale", CLI_REAL(play_args, from_scale), .meta = "M", .min = 1e-6, .max = 1e6,
     .help = "metres per unit of the --from and --from-reversed .bvh files, 0.056444 for CMU captures",
     .dflt_text = "the file's units"},
    {"--idle", CLI_STRING(play_args, idle), .meta = "NAME", .help = "the idle clip", .dflt_text = "idle, when there is one"},
    {"--graph", CLI_STRING(play_args, graph), .meta = "FILE|builtin|none",
     .help = "the state machine deciding idle or locomotion, as locomote --graph",
     .dflt_text = "builtin with an idle clip, else none"},
    {"--scale", CLI_REAL(play_args, scale), .meta = "M", .min = 1e-6, .max = 1e6,
     .help = "metres per unit of a .bvh character, 0.0564444 for CMU captures", .dflt_text = "the file's units"},
    {"--script", CLI_STRING(play_args, script), .meta = "FILE",
     .help = "timed input events instead of (or with) a person: format below; fixed time steps"},
    {"--frames", CLI_INT(play_args, frames), .meta = "N", .min = 0, .max = 10000000, .dflt = "0",
     .help = "run N frames at fixed steps and exit; 0: until the window closes or the script quits"},
    {"--fps", CLI_REAL(play_args, fps), .meta = "F", .min = 10, .max = 1000,
     .help = "fixed steps of 1/F s", .dflt_text = "60 with --script or --frames, else the real frame time"},
    {"--size", CLI_INTS(play_args, size, 2, 'x'), .meta = "WxH", .min = 16, .max = 8192, .dflt = "960x720",
     .help = "the window's size in pixels"},
    {"--panel", CLI_CHOICE(play_args, panel, "on|off"), .help = "start with the panel shown (F1 or Tab toggles it)",
     .dflt = "on"},
    {"--json", CLI_FLAG(play_args, json),
     .help = "at the end, one JSON line: position, yaw, distance walked, foot metrics, the panel's toggles"},
    {"--trace", CLI_STRING(play_args, trace), .meta = "OUT.jsonl", .help = "one JSON line per frame, as locomote --trace"},
    {"--screenshot", CLI_STRING(play_args, screenshot), .meta = "F.png", .help = "write the last frame (--frames N)"},
};
static const cli_arg play_arg_list[] = {
    {"CHARACTER", CLI_ARG(play_args, character), .flags = CLI_REQUIRED,
     .help = "as locomote: a .glb/.gltf with a walk and a run clip, a .bvh with --scale, or " SK_CLI_MANNEQUIN
             " (" SK_CLI_PLANAR " or " SK_CLI_SPRITE " with --procedural)"},
};
static const char *const play_notes[] = {
    "keys:    W A S D or the arrows walk, relative to the camera | Shift run | Q E strafe |\n"
    "         Space stop (held) | F1 or Tab the panel | Esc quit\n"
    "mouse:   left drag orbits the camera, the wheel zooms\n"
    "pad:     left stick walks (strafes, when the character has a clip named *strafe*) |\n"
    "         right stick orbits | right trigger or left stick press run | B stop |\n"
    "         d-pad left/right strafe | Start the panel | Back quit\n"
    "--script: one event a line, times in seconds of simulated time, not decreasing:\n"
    "         T key NAME down|up      w a s d up down left right shift rshift q e space escape f1 tab\n"
    "         T button NAME down|up   a b x y back start leftshoulder rightshoulder leftstick dpleft ...\n"
    "         T axis NAME VALUE       leftx lefty rightx righty lefttrigger righttrigger, in [-1, 1]\n"
    "         T click X Y | T drag DX DY | T quit\n"
    "         keys and the mouse go through SDL's event queue, the pad through a virtual controller.\n",
    NULL,
};
const cli_command cli_cmd_play = {
    .name = "play",
    .run = cmd_play,
    .summary = "drive a character with the keyboard or a game controller (SDL2 window)",
    .about = "A window with a character under keyboard, mouse or game-controller control: the "
             "direction is relative to the camera, which follows the character; the locomotor "
             "(or the IK-only walker) places the feet, the state machine picks idle or "
             "locomotion. --script replays timed input for tests; --json prints the end state "
             "and the foot metrics of locomote.",
    .opts = play_opts,
    .nopts = CLI_COUNT(play_opts),
    .args = play_arg_list,
    .nargs = CLI_COUNT(play_arg_list),
    .notes = play_notes,
};
