/* skelanim locomote: a character walks a path over a terrain, its feet placed
 * by the semi-procedural locomotion runtime (issue #10; seed 002 ch. 5;
 * skelanim/locomotion/locomotor.h). Prints the foot metrics; --trace writes
 * one JSON line per frame, --out renders it. */
#include "loco_maneuver.h"
#include "cli.h"
#include "loco_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int render(const char *out, const loco_char *c, const cli_terrain *terrain, frame_rec *frames, uint32_t nf,
                  double fps_out, double at, uint32_t w, uint32_t h, float bmin[3], float bmax[3], bool side,
                  bool overlay, const char *path) {
    sk_error err = {0};
    bool gif = ends_with(out, ".gif");
    loco_view v;
    memset(&v, 0, sizeof v);
    float path_xz[2 * SK_PATH_MAX_POINTS];
    uint32_t path_n = overlay ? sk_path_parse(path, path_xz, SK_PATH_MAX_POINTS, NULL) : 0;
    uint32_t pick = at >= 0 ? (uint32_t)fmin(at * fps_out, nf - 1.0) : nf / 2;
    bool ok = nf > 0 && loco_view_open(&v, gif ? out : NULL, w, h, &err) && (v.side = side, v.overlay = overlay, v.path_xz = path_xz, v.path_n = path_n, true) &&
              loco_view_scene(&v, c, terrain, frames, gif ? 0 : pick, gif ? nf : pick + 1, fps_out, bmin, bmax,
                         gif ? NULL : out, &err);
    if (ok && v.gif) {
        skr_gif *g = v.gif;
        v.gif = NULL;
        ok = skr_gif_close(g, &err) == SK_OK;
    }
    uint32_t drawn = v.frames;
    loco_view_close(&v);
    if (!ok) {
        fprintf(stderr, "skelanim: locomote: --out %s: %s\n", out, err.message[0] ? err.message : "failed");
        return 1;
    }
    printf("wrote %s (%ux%u, %u frame%s)\n", out, w, h, drawn, drawn == 1 ? "" : "s");
    return 0;
}

typedef struct locomote_args {
    const char *character, *idle, *graph, *terrain, *path, *trace, *out, *maneuver, *push;
    cli_list clips, from, from_reversed;
    double speed, turn_rate, fps, seconds, at, scale, from_scale, jump, point[3], face, crouch, look[3];
    double hip_rise, step_frequency, rest_step[2];
    uint32_t size[2];
    int cycle, gait;
    bool plain, procedural, side, backward, json, overlay;
} locomote_args;

/* The foot metrics: one JSON line, or a few lines of text. */
/* What a run did not do that the user asked for, on stderr whatever the
 * output format: the path not walked to its end, a jump that never came, feet
 * under the ground (a wall or a step the character cannot climb). */
static void warn_run(const locomote_args *a, const loco_char *c, const loco_metrics *m, bool finished) {
    if (!finished)
        fprintf(stderr, "skelanim: warning: the run ended after %.1f s%s with %.2f of the path's %.2f m walked\n",
                m->run_seconds, a->seconds > 0 ? " (--seconds)" : " (the longest run: give a shorter path)",
                m->path_walked, m->path_length);
    if (c->jump_at >= 0 && !m->jumped)
        fprintf(stderr, "skelanim: warning: --jump %g: the run ended after %.1f s, before the jump\n", c->jump_at,
                m->run_seconds);
    if (m->penetration_max > 0.1)
        fprintf(stderr, "skelanim: warning: a foot went %.2f m under the ground: the terrain is more than the character "
                "can climb (a wall, or a step higher than its legs); %u stance leg-frames did not reach the ground\n",
                m->penetration_max, m->unreached);
}

static void print_metrics(const locomote_args *a, const loco_char *c, const cli_terrain *terrain, const loco_metrics *m,
                          bool finished, double sim_ms) {
    double t = m->frames / a->fps;
    warn_run(a, c, m, finished);
    loco_feet endf;
    loco_char_feet(c, &endf);
    if (a->json) {
        printf("{\"terrain\":\"%s\",\"plain\":%s,\"speed\":%.3f,\"frames\":%u,\"seconds\":%.3f,",
               a->terrain ? a->terrain : "flat", a->plain ? "true" : "false", a->speed, m->frames, t);
        printf("\"stance_fraction\":[");
        for (uint32_t l = 0; l < c->leg_count; l++) printf("%s%.4f", l ? "," : "", (double)m->stance_frames[l] / m->frames);
        printf("],\"stance_runs\":%u,\"slide_max_cm\":%.4f,\"slide_mean_cm\":%.4f,\"contact_max_cm\":%.4f,"
               "\"contact_mean_cm\":%.4f,\"penetration_max_cm\":%.4f,\"unreached\":%u,\"end\":[%.4f,%.4f,%.4f],"
               "\"simulation_ms\":%.3f",
               m->runs, 100 * m->slide_max, m->runs ? 100 * m->slide_sum / m->runs : 0.0, 100 * m->contact_max,
               m->contact_n ? 100 * m->contact_sum / m->contact_n : 0.0, 100 * m->penetration_max, m->unreached,
               endf.root.x, endf.root.y, endf.root.z, sim_ms);
        printf(",\"skate\":%.4f,\"skate_frames\":%u", m->skate_low ? (double)m->skate_fast / m->skate_low : 0.0,
               m->skate_low);
        printf(",\"path_finished\":%s,\"path_length_m\":%.4f,\"path_walked_m\":%.4f", finished ? "true" : "false",
               m->path_length, m->path_walked);
        if (c->jump_at >= 0) printf(",\"jumped\":%s", m->jumped ? "true" : "false");
        if (c->limits) printf(",\"limits_outside_frames\":%u", m->limit_outside);
        if (m->body_set) printf(",\"body_low\":%.3f", m->body_set ? m->body_low : 1.0);
        bool any_from = false; /* the --from clips' turns to face +Z (loco_run.c, face_forward) */
        for (uint32_t k = 0; k < c->nclips; k++)
            if (c->owned[k]) printf("%s%.1f", any_from ? "," : ",\"from_turned_deg\":[", c->turned_deg[k]), any_from = true;
        if (any_from) printf("]");
        if (m->legged)
            printf(",\"planted_min\":%u,\"gait_min_planted\":%u,\"clearance_min_m\":%.4f", m->planted_min, m->gait_min,
                   m->clearance_min);
        printf("}\n");
        return;
    }
    printf("locomote: %s on %s, %s, %.2f m/s, %u frames (%.2f s)%s\n", a->character,
           terrain ? terrain->description : "flat ground", a->plain ? "plain clips (baseline)" : "foot placement",
           a->speed, m->frames, t, finished ? "" : " — the path was not finished");
    for (uint32_t l = 0; l < c->leg_count; l++)
        printf("  %-6s in stance %.1f%% of the frames\n", loco_char_leg_name(c, l), 100.0 * m->stance_frames[l] / m->frames);
    printf("  slide        max %.3f cm, mean %.3f cm over %u stance runs\n", 100 * m->slide_max,
           m->runs ? 100 * m->slide_sum / m->runs : 0.0, m->runs);
    printf("  contact      max %.3f cm, mean %.3f cm (in stance)\n", 100 * m->contact_max,
           m->contact_n ? 100 * m->contact_sum / m->contact_n : 0.0);
    printf("  penetration  max %.3f cm\n", 100 * m->penetration_max);
    printf("  skate        %.3f of %u leg-frames with a foot within 2 cm of the ground moved it faster than 30 cm/s\n",
           m->skate_low ? (double)m->skate_fast / m->skate_low : 0.0, m->skate_low);
    if (m->unreached) printf("  the leg IK fell short in %u leg-frames\n", m->unreached);
    if (m->legged)
        printf("  feet down    at least %u at every walking frame (the gait's guarantee: %u); the body at least "
               "%.3f m over the ground\n", m->planted_min, m->gait_min, m->clearance_min);
    if (c->limits)
        printf("  limits       %u of %u frames with a leg or arm joint outside the mannequin's anatomical limits\n",
               m->limit_outside, m->frames);
}

static int cmd_locomote(int argc, char **argv) {
    locomote_args a;
    memset(&a, 0, sizeof a);
    a.seconds = -1, a.at = -1, a.jump = -1;
    cli_seen seen;
    int prc = cli_parse(&cli_cmd_locomote, argc, argv, &a, &seen);
    if (prc != CLI_CONTINUE) return prc;
    if (a.jump >= 0 && a.seconds > 0 && a.jump >= a.seconds) {
        fprintf(stderr, "skelanim: --jump %g: the run lasts %g s (--seconds); the jump would never happen\n", a.jump,
                a.seconds);
        return 1;
    }
    loco_setup setup = {0};
    if (!loco_setup_from(&setup, a.from.v, a.from.n, a.from_reversed.v, a.from_reversed.n, a.from_scale,
                         cli_given(&seen, "--from-scale"), a.procedural, ""))
        return 1;
    setup.character = a.character;
    for (uint32_t i = 0; i < a.clips.n; i++) setup.clips[setup.nclips++] = a.clips.v[i];
    setup.idle = a.idle, setup.graph = a.graph, setup.scale = a.scale;
    setup.plain = a.plain, setup.procedural = a.procedural, setup.find_cycle = cli_given(&seen, "--cycle");
    setup.hip_rise = a.hip_rise, setup.step_frequency = a.step_frequency;
    setup.rest_width = a.rest_step[0], setup.rest_ahead = a.rest_step[1];
    bool gait_opts = cli_given(&seen, "--hip-rise") || cli_given(&seen, "--step-frequency") ||
                     cli_given(&seen, "--rest-step");
    if (gait_opts && !a.procedural) {
        fprintf(stderr, "skelanim: --hip-rise, --step-frequency and --rest-step go with --procedural\n");
        return 1;
    }
    setup.gait = !cli_given(&seen, "--gait") ? 0 : 1 + (a.gait == 0 ? SK_LEGGED_GAIT_WAVE : SK_LEGGED_GAIT_ALTERNATE);
    const char *terrain_spec = a.terrain, *trace = a.trace, *out = a.out;
    bool point = cli_given(&seen, "--point");
    uint32_t w = a.size[0], h = a.size[1];
    if (out && !ends_with(out, ".gif") && !ends_with(out, ".png")) {
        fprintf(stderr, "skelanim: --out %s: expected a .gif or .png file\n", out);
        return 1;
    }
    sk_error err = {0};
    cli_terrain *terrain = NULL;
    if (terrain_spec && cli_terrain_parse(terrain_spec, &terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    setup.terrain = terrain ? &terrain->terrain : NULL;
    loco_char c;
    if (!loco_char_create(&setup, &c)) { cli_terrain_destroy(terrain); return 1; }
    if (a.overlay && (setup.procedural || c.legged || !out)) {
        fprintf(stderr, "skelanim: --overlay draws the locomotor's state on --out (not with --procedural)\n");
        loco_char_destroy(&c);
        cli_terrain_destroy(terrain);
        return 1;
    }
    bool look = cli_given(&seen, "--look");
    if (c.legged && (a.jump >= 0 || a.backward || point || look || a.push || cli_given(&seen, "--crouch") ||
                     a.maneuver || a.from.n || a.from_reversed.n || a.clips.n)) {
        fprintf(stderr, "skelanim: %s walks with the N-legged walker: --jump, --backward, --point, --look, --crouch, "
                        "--push, --maneuver, --clips and --from are the biped's\n", a.character);
        loco_char_destroy(&c);
        cli_terrain_destroy(terrain);
        return 1;
    }
    if (!c.legged && cli_given(&seen, "--gait")) {
        fprintf(stderr, "skelanim: --gait goes with " SK_CLI_TRIPOD ", " SK_CLI_QUADRUPED " or " SK_CLI_HEXAPOD "\n");
        loco_char_destroy(&c);
        cli_terrain_destroy(terrain);
        return 1;
    }
    if ((a.jump >= 0 || a.backward || point || look || a.push || cli_given(&seen, "--crouch")) && !setup.procedural) {
        fprintf(stderr, "skelanim: --jump, --backward, --point, --look, --crouch and --push go with --procedural (the "
                        "IK-only walker)\n");
        loco_char_destroy(&c);
        cli_terrain_destroy(terrain);
        return 1;
    }
    c.jump_at = a.jump;
    c.backward = a.backward;
    c.face = (float)(a.face * M_PI / 180.0);
    c.point = point;
    c.crouch = a.crouch;
    c.push_at = -1;
    if (a.push) {
        double t, vx, vz;
        char tail;
        if (sscanf(a.push, "%lf:%lf,%lf%c", &t, &vx, &vz, &tail) != 3 || !(t >= 0 && t <= 600) || !isfinite(vx) ||
            !isfinite(vz) || !(hypot(vx, vz) <= 50)) {
            fprintf(stderr, "skelanim: --push %s: expected T:VX,VZ (seconds 0..600, a change of the body's velocity in "
                            "m/s, at most 50)\n", a.push);
            loco_char_destroy(&c);
            cli_terrain_destroy(terrain);
            return 1;
        }
        c.push_at = t;
        c.push_dv = sk_vec3_make((float)vx, 0, (float)vz);
    }
    c.look = look;
    c.look_at = sk_vec3_make((float)a.look[0], (float)a.look[1], (float)a.look[2]);
    c.point_at = sk_vec3_make((float)a.point[0], (float)a.point[1], (float)a.point[2]);
    int rc = 1;
    FILE *tf = NULL;
    frame_rec *frames = NULL;
    uint32_t nframes = 0;
    if (trace && !(tf = fopen(trace, "w"))) {
        fprintf(stderr, "skelanim: --trace %s: cannot write\n", trace);
        goto done;
    }
    loco_metrics m;
    rec_ctx rc_ctx;
    loco_record_init(&rc_ctx, tf, out ? 25 : 0);
    rc_ctx.overlay = a.overlay, rc_ctx.path_text = a.path, rc_ctx.terrain_spec = terrain_spec ? terrain_spec : "flat";
    double t0 = cli_now();
    bool finished = false, ok;
    if (a.maneuver) { /* a scripted maneuver instead of the path */
        int which = loco_maneuver_find(a.maneuver);
        ok = which >= 0 && loco_run_maneuver(&c, (uint32_t)which, a.speed, a.fps, a.seconds, &m, NULL, loco_record,
                                             &rc_ctx);
        if (which < 0) fprintf(stderr, "skelanim: --maneuver %s: not one of the maneuvers below\n", a.maneuver);
        finished = true;
    } else {
        ok = loco_run_path(&c, a.path, a.speed, a.turn_rate, a.fps, a.seconds, &m, loco_record, &rc_ctx, &finished);
    }
    frames = rc_ctx.frames;
    nframes = rc_ctx.nframes;
    if (!ok) goto done;
    float *bmin = rc_ctx.bmin, *bmax = rc_ctx.bmax;
    print_metrics(&a, &c, terrain, &m, finished, (cli_now() - t0) * 1e3);
    if (tf) {
        if (fclose(tf) != 0) { tf = NULL; fprintf(stderr, "skelanim: --trace %s: write failed\n", trace); goto done; }
        tf = NULL;
        if (!a.json) printf("wrote %s (%u lines)\n", trace, m.frames);
    }
    if (out) {
        bmin[1] -= 1.0f, bmax[1] += 2.0f;
        if (render(out, &c, terrain, frames, nframes, rc_ctx.fps_out, a.at, w, h, bmin, bmax, a.side, a.overlay,
                   a.path) != 0)
            goto done;
    }
    rc = 0;
done:
    if (tf) fclose(tf);
    for (uint32_t i = 0; i < nframes; i++) free(frames[i].world), free(frames[i].ov);
    free(frames);
    loco_char_destroy(&c);
    cli_terrain_destroy(terrain);
    return rc;
}

static const cli_opt locomote_opts[] = {
    {"--clips", CLI_LIST_OF(CLI_KIND_STRING, locomote_args, clips, CLI_GREEDY), .meta = "NAME...",
     .max_count = LOCO_MAX_CLIPS, .help = "the cyclic clips to analyse and blend by speed", .dflt_text = "walk run"},
    {"--from", CLI_LIST_OF(CLI_KIND_STRING, locomote_args, from, 0), .meta = "FILE[:CLIP]",
     .max_count = LOCO_MAX_CLIPS,
     .help = "a walk or run from another file and skeleton (repeatable): the clip (a name or an index; the first) "
             "retargeted onto CHARACTER (its foot contacts not pinned: the locomotor places the feet), its planted feet "
             "levelled, its best cycle analysed (a clip of a .glb/.gltf or @mannequin:CLIP in which no cycle comes back "
             "is taken whole, as a loop), each foot's planted phase widened to the source's own"},
    {"--from-reversed", CLI_LIST_OF(CLI_KIND_STRING, locomote_args, from_reversed, 0), .meta = "FILE[:CLIP]",
     .max_count = LOCO_MAX_CLIPS,
     .help = "as --from, the clip played in reverse: a captured walk as the backward walk (walk it with --face 180; "
             "a person walking backward is not a forward walk reversed, but its feet plant and lift the same)"},
    {"--from-scale", CLI_REAL(locomote_args, from_scale), .meta = "M", .min = 1e-6, .max = 1e6,
     .help = "metres per unit of the --from and --from-reversed .bvh files (others keep their units), 0.056444 for "
             "CMU captures",
     .dflt_text = "the file's units (a .bvh whose legs are over 5 units long is refused)"},
    {"--idle", CLI_STRING(locomote_args, idle), .meta = "NAME", .help = "the idle clip", .dflt_text = "idle, when there is one"},
    {"--cycle", CLI_CHOICE(locomote_args, cycle, "auto"),
     .help = "the clips are captures, not loops: each plays its best cycle, the closest poses"},
    {"--graph", CLI_STRING(locomote_args, graph), .meta = "FILE|builtin|none",
     .help = "the state machine deciding idle or locomotion, below",
     .dflt_text = "builtin with an idle clip, else none"},
    {"--terrain", CLI_STRING(locomote_args, terrain), .meta = "SPEC", .help = "the ground, in a form below",
     .dflt_text = "flat"},
    {"--maneuver", CLI_STRING(locomote_args, maneuver), .meta = "NAME",
     .help = "instead of the path, from the origin facing +Z: turn-in-place (a full turn at 90 deg/s), turn-180 "
             "(the way of travel turned within 1 s), sidestep (to the left), stop-mid-stride"},
    {"--path", CLI_STRING(locomote_args, path), .meta = "\"X,Z X,Z ...\"", .dflt = "0,0 0,8",
     .help = "the ground path the character follows, metres"},
    {"--speed", CLI_REAL(locomote_args, speed), .meta = "M/S", .min = 1e-3, .max = 10, .dflt = "1.4",
     .help = "the cruise speed; the blend of the clips follows it"},
    {"--face", CLI_REAL(locomote_args, face), .meta = "DEG", .min = -360, .max = 360, .dflt = "0",
     .help = "the body's yaw against the path: 0 forward, 180 backward, 90 with the path to the character's left "
             "(a sidestep), -90 to its right; give --clips with backward and sideways clips"},
    {"--turn-rate", CLI_REAL(locomote_args, turn_rate), .meta = "DEG/S", .min = 1e-3, .max = 3600, .dflt = "90",
     .help = "the fastest turn"},
    {"--fps", CLI_REAL(locomote_args, fps), .meta = "F", .min = 10, .max = 1000, .dflt = "60", .help = "simulation steps per second"},
    {"--seconds", CLI_REAL(locomote_args, seconds), .meta = "S", .min = 1e-3, .max = 600,
     .help = "simulated time", .dflt_text = "until the path's end, plus 1 s standing"},
    {"--plain", CLI_FLAG(locomote_args, plain),
     .help = "the clips with their root motion replaced by the path, no foot placement: the baseline"},
    {"--scale", CLI_REAL(locomote_args, scale), .meta = "M", .min = 1e-6, .max = 1e6,
     .help = "metres per unit of a .bvh character, 0.0564444 for CMU captures", .dflt_text = "the file's units"},
    {"--trace", CLI_STRING(locomote_args, trace), .meta = "OUT.jsonl", .help = "one JSON line per frame, below"},
    {"--json", CLI_FLAG(locomote_args, json), .help = "the metrics as one JSON line"},
    {"--out", CLI_STRING(locomote_args, out), .meta = "WALK.gif|WALK.png",
     .help = "render the walk: a GIF at 25 frames/s, or one PNG frame"},
    {"--at", CLI_REAL(locomote_args, at), .meta = "T", .min = 0, .max = 600,
     .help = "(--out PNG) the frame at T seconds", .dflt_text = "the middle"},
    {"--size", CLI_INTS(locomote_args, size, 2, 'x'), .meta = "WxH", .min = 16, .max = 4096, .dflt = "480x360",
     .help = "the --out image's size in pixels"},
    {"--procedural", CLI_FLAG(locomote_args, procedural),
     .help = "the IK-only walker (seed 004): no clips, legs and arms by inverse kinematics"},
    {"--jump", CLI_REAL(locomote_args, jump), .meta = "T", .min = 0, .max = 600,
     .help = "(--procedural) jump at T seconds: crouch, take-off, flight, landing"},
    {"--backward", CLI_FLAG(locomote_args, backward), .help = "(--procedural) walk the path facing backward"},
    {"--look", CLI_REALS(locomote_args, look, 3, ','), .meta = "X,Y,Z", .min = -1e5, .max = 1e5,
     .help = "(--procedural) the head looks at this world point while walking (spine and neck share the turn)"},
    {"--push", CLI_STRING(locomote_args, push), .meta = "T:VX,VZ",
     .help = "(--procedural) push the body at T seconds, changing its velocity by (VX, VZ) m/s: recovery steps, or "
             "a fall"},
    {"--hip-rise", CLI_REAL(locomote_args, hip_rise), .meta = "R", .min = 0.1, .max = 1,
     .help = "(--procedural) the seed's hip rise: the hips bob by (-4 (s - 0.5)^2 + 0.25) / R x 2 cm over a step (a "
             "smaller R moves more)", .dflt_text = "0.2"},
    {"--step-frequency", CLI_REAL(locomote_args, step_frequency), .meta = "F", .min = 0.1, .max = 10,
     .help = "(--procedural) steps per second at walking speed (the full walking step is 1.3 m/s / F, 0.3..1.1 leg "
             "lengths)", .dflt_text = "1.3 m/s over 0.85 leg lengths: 1.8 for the mannequin"},
    {"--rest-step", CLI_REALS(locomote_args, rest_step, 2, ','), .meta = "W,A", .min = -100, .max = 100,
     .help = "(--procedural) where stopping ends: the heels W m apart across the support foot (0.1..0.5 leg lengths; "
             "0: the hips' width), the resting foot A m ahead of it (-0.3..0.3 leg lengths)", .dflt_text = "0,0"},
    {"--crouch", CLI_REAL(locomote_args, crouch), .meta = "H", .min = 0.1, .max = 100,
     .help = "(--procedural) walk crouched, the head under H metres above the ground (as under a low ceiling)"},
    {"--point", CLI_REALS(locomote_args, point, 3, ','), .meta = "X,Y,Z", .min = -1e5, .max = 1e5,
     .help = "(--procedural) the right arm points at this world point while walking"},
    {"--gait", CLI_CHOICE(locomote_args, gait, "wave|trot|tripod"),
     .help = "(" SK_CLI_TRIPOD ", " SK_CLI_QUADRUPED ", " SK_CLI_HEXAPOD ") wave: one leg at a time (a quadruped's walk); "
             "trot or tripod: diagonal groups in antiphase (even leg counts)",
     .dflt_text = "tripod for " SK_CLI_HEXAPOD ", else wave"},
    {"--overlay", CLI_FLAG(locomote_args, overlay),
     .help = "(--out) draw the debugging view: footsteps, foot states, velocity, path, cycle strips, weights"},
    {"--side", CLI_FLAG(locomote_args, side),
     .help = "render the side view (seed 004's 2D look): orthographic from the character's left, the ground as its "
             "profile; bones, or the cut-out mesh of " SK_CLI_SPRITE " (" SK_CLI_PLANAR " and " SK_CLI_SPRITE
             " are its 2D characters)"},
};
static const cli_arg locomote_arg_list[] = {
    {"CHARACTER", CLI_ARG(locomote_args, character), .flags = CLI_REQUIRED,
     .help = "a .glb/.gltf with a walk and a run clip (or with --from, any humanoid), or " SK_CLI_MANNEQUIN " ("
             SK_CLI_PLANAR " or " SK_CLI_SPRITE " with --procedural), or a creature walking on its legs by IK alone: "
             SK_CLI_TRIPOD ", " SK_CLI_QUADRUPED ", " SK_CLI_HEXAPOD},
};
static const char locomote_note[] =
    "--graph: a JSON state machine with an external state \"external\": \"locomotion\" (its parameters\n"
    "         \"speed\" and \"standing\" are set each frame); builtin: idle <-> locomotion by speed, leaving\n"
    "         only with the feet down; none: the locomotor fades its idle clip itself.\n"
    "--trace: one JSON line per frame, world positions in metres:\n"
    "         {\"t\",\"root\",\"feet\":[{\"leg\",\"heel\",\"toe\",\"ankle\",\"stance\"}...],\"joints\":{NAME:[x,y,z]...}}\n"
    "         with, on the frame a foot touches or leaves the ground (both walkers), its \"event\":\n"
    "         {\"kind\":\"down\"|\"up\",\"position\",\"normal\",\"speed\"} (the footstep, m/s of the ankle)\n"
    "         and, from the locomotor (not --procedural), per foot \"grounded\", \"cycle_time\", \"flight\",\n"
    "         \"from\"/\"to\":{\"heel\",\"toe\",\"normal\"}, \"keys\":{\"strike\",\"land\",\"lift\",\"off\"}, per frame\n"
    "         \"velocity\", \"yaw\", \"mode\", \"phase\", \"moving\", \"weights\":{CLIP:W}; the first line also\n"
    "         \"path\", \"terrain\" and the skeleton's \"parents\" (skelanim view TRACE.jsonl replays it).\n";
static const char *const locomote_notes[] = {locomote_note, cli_terrain_usage, NULL};
const cli_command cli_cmd_locomote = {
    .name = "locomote",
    .run = cmd_locomote,
    .summary = "walk a path over a terrain with the feet placed; foot-slide metrics",
    .about = "A character walks a path over stairs, ramps, bumps or a mesh, its feet placed on "
             "the ground by the semi-procedural locomotion runtime (seed 002 ch. 5); prints the "
             "foot-slide, contact and penetration metrics; --trace writes one JSON line per "
             "frame, --out renders the walk.",
    .opts = locomote_opts,
    .nopts = CLI_COUNT(locomote_opts),
    .args = locomote_arg_list,
    .nargs = CLI_COUNT(locomote_arg_list),
    .notes = locomote_notes,
    .unknown = "unknown or incomplete option", /* the wording tests/cli_locomote.sh checks */
};
