/* skelanim locomote: a character walks a path over a terrain, its feet placed
 * by the semi-procedural locomotion runtime (issue #10; seed 002 ch. 5;
 * skelanim/locomotion/locomotor.h). Prints the foot metrics; --trace writes
 * one JSON line per frame, --out renders it. */
#include "cli.h"
#include "loco_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
    fprintf(stderr,
            "usage: skelanim locomote CHARACTER [--clips NAME...] [--idle NAME] [--graph FILE|builtin|none] [--terrain SPEC]\n"
            "                         [--path \"X,Z X,Z ...\"] [--speed M/S] [--turn-rate DEG/S] [--fps 60]\n"
            "                         [--seconds S] [--plain] [--trace out.jsonl] [--json]\n"
            "                         [--out walk.gif|walk.png [--at T]] [--size WxH] [--procedural [--jump T] [--backward] [--point X,Y,Z]] [--side]\n"
            "  CHARACTER   a .glb/.gltf with a walk and a run clip, or @mannequin\n"
            "  --clips     the cyclic clips to analyse and blend by speed (default: \"walk\" \"run\")\n"
            "  --cycle auto  the clips are captures, not loops: each plays its best cycle (closest poses)\n"
            "  --graph G   a state machine decides idle / locomotion: a JSON file with an external state\n"
            "              \"external\": \"locomotion\" (parameters \"speed\" and \"standing\" are set each frame),\n"
            "              \"builtin\" (idle <-> locomotion by speed, leaving only with the feet down; the default\n"
            "              when the character has an idle clip), or \"none\" (the locomotor fades its idle itself)\n"
            "  --scale M   metres per unit of a .bvh character (CMU: 0.056444)\n"
            "  --path      the ground path the character follows (default \"0,0 0,8\": 8 m along +Z)\n"
            "  --speed     cruise speed (default 1.4 m/s); the blend of the clips follows it\n"
            "  --seconds   simulated time (default: until the path's end, plus 1 s standing)\n"
            "  --plain     the clips with their root motion replaced by the path, no foot placement\n"
            "              (the baseline the metrics compare against)\n"
            "  --trace     one JSON line per frame: {\"t\",\"root\",\"feet\":[{\"leg\",\"heel\",\"toe\",\"ankle\",\n"
            "              \"stance\"}...],\"joints\":{NAME:[x,y,z]...}}, world positions in metres\n"
            "  --out       render the walk (GIF: 25 frames/s; PNG: one frame, at T s with --at, else the middle)\n"
            "  --procedural  the IK-only walker (seed 004): no clips, legs and arms by inverse kinematics\n"
            "  --jump T    (with --procedural) jump at T s: crouch, take-off, flight, landing\n"
            "  --backward  (with --procedural) walk the path facing backward\n"
            "  --point X,Y,Z  (with --procedural) the right arm points at this world point while walking\n"
            "  --side      render the side view as bones (the 2D look of seed 004; @planar is its 2D rig)\n"
            "%s",
            cli_terrain_usage);
}

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int render(const char *out, const loco_char *c, const cli_terrain *terrain, frame_rec *frames, uint32_t nf,
                  double fps_out, double at, uint32_t w, uint32_t h, float bmin[3], float bmax[3], bool side) {
    sk_error err = {0};
    bool gif = ends_with(out, ".gif");
    loco_view v;
    memset(&v, 0, sizeof v);
    uint32_t pick = at >= 0 ? (uint32_t)fmin(at * fps_out, nf - 1.0) : nf / 2;
    bool ok = nf > 0 && loco_view_open(&v, gif ? out : NULL, w, h, &err) && (v.side = side, true) &&
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

int cmd_locomote(int argc, char **argv) {
    if (argc < 1 || argv[0][0] == '-') {
        usage();
        return 1;
    }
    loco_setup setup = {0};
    setup.character = argv[0];
    const char *terrain_spec = NULL, *path_text = "0,0 0,8", *trace = NULL, *out = NULL, *size = "480x360";
    double speed = 1.4, fps = 60, seconds = -1, turn = 90, at = -1;
    bool json = false, side = false, backward = false, point = false;
    double point_at[3] = {0, 0, 0};
    double jump_at = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--clips") && more) {
            while (i + 1 < argc && argv[i + 1][0] != '-' ) {
                if (setup.nclips == LOCO_MAX_CLIPS) {
                    fprintf(stderr, "skelanim: --clips: at most %d clips\n", LOCO_MAX_CLIPS);
                    return 1;
                }
                setup.clips[setup.nclips++] = argv[++i];
            }
        } else if (!strcmp(a, "--idle") && more) setup.idle = argv[++i];
        else if (!strcmp(a, "--graph") && more) setup.graph = argv[++i];
        else if (!strcmp(a, "--terrain") && more) terrain_spec = argv[++i];
        else if (!strcmp(a, "--path") && more) path_text = argv[++i];
        else if (!strcmp(a, "--speed") && more) { if (!cli_parse_real("--speed", argv[++i], 1e-3, 10, &speed)) return 1; }
        else if (!strcmp(a, "--turn-rate") && more) { if (!cli_parse_real("--turn-rate", argv[++i], 1e-3, 3600, &turn)) return 1; }
        else if (!strcmp(a, "--fps") && more) { if (!cli_parse_real("--fps", argv[++i], 10, 1000, &fps)) return 1; }
        else if (!strcmp(a, "--seconds") && more) { if (!cli_parse_real("--seconds", argv[++i], 1e-3, 600, &seconds)) return 1; }
        else if (!strcmp(a, "--at") && more) { if (!cli_parse_real("--at", argv[++i], 0, 600, &at)) return 1; }
        else if (!strcmp(a, "--plain")) setup.plain = true;
        else if (!strcmp(a, "--procedural")) setup.procedural = true;
        else if (!strcmp(a, "--side")) side = true;
        else if (!strcmp(a, "--backward")) backward = true;
        else if (!strcmp(a, "--point") && more) {
            if (!cli_parse_doubles("--point", argv[++i], ',', 3, -1e5, 1e5, point_at)) return 1;
            point = true;
        }
        else if (!strcmp(a, "--scale") && more) { if (!cli_parse_real("--scale", argv[++i], 1e-6, 1e6, &setup.scale)) return 1; }
        else if (!strcmp(a, "--cycle") && more) {
            const char *v = argv[++i];
            if (strcmp(v, "auto")) { fprintf(stderr, "skelanim: --cycle %s: expected auto\n", v); return 1; }
            setup.find_cycle = true;
        }
        else if (!strcmp(a, "--jump") && more) { if (!cli_parse_real("--jump", argv[++i], 0, 600, &jump_at)) return 1; }
        else if (!strcmp(a, "--trace") && more) trace = argv[++i];
        else if (!strcmp(a, "--out") && more) out = argv[++i];
        else if (!strcmp(a, "--size") && more) size = argv[++i];
        else if (!strcmp(a, "--json")) json = true;
        else {
            fprintf(stderr, "skelanim: locomote: unknown or incomplete option '%s'\n", a);
            usage();
            return 1;
        }
    }
    uint32_t wh[2];
    if (!cli_parse_u32s("--size", size, 'x', 2, 16, 4096, wh)) return 1;
    uint32_t w = wh[0], h = wh[1];
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
    if ((jump_at >= 0 || backward || point) && !setup.procedural) {
        fprintf(stderr, "skelanim: --jump, --backward and --point go with --procedural (the IK-only walker)\n");
        loco_char_destroy(&c);
        cli_terrain_destroy(terrain);
        return 1;
    }
    c.jump_at = jump_at;
    c.backward = backward;
    c.point = point;
    c.point_at = sk_vec3_make((float)point_at[0], (float)point_at[1], (float)point_at[2]);
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
    double t0 = cli_now();
    bool finished = false;
    bool ok = loco_run_path(&c, path_text, speed, turn, fps, seconds, &m, loco_record, &rc_ctx, &finished);
    frames = rc_ctx.frames;
    nframes = rc_ctx.nframes;
    if (!ok) goto done;
    double t = m.frames / fps;
    float *bmin = rc_ctx.bmin, *bmax = rc_ctx.bmax;
    double fps_out = rc_ctx.fps_out;
    double sim_ms = (cli_now() - t0) * 1e3;
    loco_feet endf;
    loco_char_feet(&c, &endf);
    if (json) {
        printf("{\"terrain\":\"%s\",\"plain\":%s,\"speed\":%.3f,\"frames\":%u,\"seconds\":%.3f,", terrain_spec ? terrain_spec : "flat",
               setup.plain ? "true" : "false", speed, m.frames, t);
        printf("\"stance_fraction\":[");
        for (uint32_t l = 0; l < c.leg_count; l++) printf("%s%.4f", l ? "," : "", (double)m.stance_frames[l] / m.frames);
        printf("],\"stance_runs\":%u,\"slide_max_cm\":%.4f,\"slide_mean_cm\":%.4f,\"contact_max_cm\":%.4f,"
               "\"contact_mean_cm\":%.4f,\"penetration_max_cm\":%.4f,\"unreached\":%u,\"end\":[%.4f,%.4f,%.4f],"
               "\"simulation_ms\":%.3f",
               m.runs, 100 * m.slide_max, m.runs ? 100 * m.slide_sum / m.runs : 0.0, 100 * m.contact_max,
               m.contact_n ? 100 * m.contact_sum / m.contact_n : 0.0, 100 * m.penetration_max, m.unreached,
               endf.root.x, endf.root.y, endf.root.z, sim_ms);
        if (c.limits) printf(",\"limits_outside_frames\":%u", m.limit_outside);
        printf("}\n");
    } else {
        printf("locomote: %s on %s, %s, %.2f m/s, %u frames (%.2f s)%s\n", setup.character,
               terrain ? terrain->description : "flat ground", setup.plain ? "plain clips (baseline)" : "foot placement",
               speed, m.frames, t, finished ? "" : " — the path was not finished");
        for (uint32_t l = 0; l < c.leg_count; l++)
            printf("  %-6s in stance %.1f%% of the frames\n", loco_char_leg_name(&c, l), 100.0 * m.stance_frames[l] / m.frames);
        printf("  slide        max %.3f cm, mean %.3f cm over %u stance runs\n", 100 * m.slide_max,
               m.runs ? 100 * m.slide_sum / m.runs : 0.0, m.runs);
        printf("  contact      max %.3f cm, mean %.3f cm (in stance)\n", 100 * m.contact_max,
               m.contact_n ? 100 * m.contact_sum / m.contact_n : 0.0);
        printf("  penetration  max %.3f cm\n", 100 * m.penetration_max);
        if (m.unreached) printf("  the leg IK fell short in %u leg-frames\n", m.unreached);
        if (c.limits)
            printf("  limits       %u of %u frames with a leg or arm joint outside the mannequin's anatomical limits\n",
                   m.limit_outside, m.frames);
    }
    if (tf) {
        if (fclose(tf) != 0) { tf = NULL; fprintf(stderr, "skelanim: --trace %s: write failed\n", trace); goto done; }
        tf = NULL;
        if (!json) printf("wrote %s (%u lines)\n", trace, m.frames);
    }
    if (out) {
        bmin[1] -= 1.0f, bmax[1] += 2.0f;
        if (render(out, &c, terrain, frames, nframes, fps_out, at, w, h, bmin, bmax, side) != 0) goto done;
    }
    rc = 0;
done:
    if (tf) fclose(tf);
    for (uint32_t i = 0; i < nframes; i++) free(frames[i].world);
    free(frames);
    loco_char_destroy(&c);
    cli_terrain_destroy(terrain);
    return rc;
}
