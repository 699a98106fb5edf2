/* skelanim demo locomotion / demo procedural: walks over terrains, one GIF.
 * locomotion: the mannequin's clips adapted (seed 002) over stairs, 10, 30
 * and 45 degree ramps and bumps; procedural: the IK-only walker (seed 004)
 * over stairs, a 45 degree ramp, off a ledge, a jump, the sprite's side
 * view on stairs, and the N-legged walker's creatures. */
#include "cli.h"
#include "loco_view.h"

#include <string.h>

static bool ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

typedef struct demo_scene {
    const char *character, *terrain, *path;
    double speed, jump_at;
    bool procedural, side;
} demo_scene;

typedef struct walks_args {
    const char *out, *clips;
    double scale;
} walks_args;

/* The scenes one after the other into one GIF, with each walk's metrics. */
static int demo_walks(const char *name, const demo_scene *scenes, size_t n, double scale, const char *out) {
    if (!ends_with(out, ".gif")) {
        fprintf(stderr, "skelanim: demo %s: --out %s: expected a .gif file\n", name, out);
        return 1;
    }
    if (!cli_make_parent_dir(out)) return 1;
    sk_error err = {0};
    loco_view v;
    if (!loco_view_open(&v, out, 400, 300, &err)) {
        fprintf(stderr, "skelanim: demo %s: %s\n", name, err.message);
        loco_view_close(&v);
        return 1;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        cli_terrain *terrain = NULL;
        if (cli_terrain_parse(scenes[k].terrain, &terrain, &err) != SK_OK) {
            fprintf(stderr, "skelanim: %s\n", err.message);
            rc = 1;
            break;
        }
        bool capture = scenes[k].character[0] != '@'; /* the built-in characters and creatures have no clips */
        loco_setup setup = {.character = scenes[k].character, .procedural = scenes[k].procedural,
                            .terrain = &terrain->terrain, .scale = scale};
        if (capture && !scenes[k].procedural) { /* its first clip, its best cycle */
            setup.clips[0] = "0";
            setup.nclips = 1;
            setup.find_cycle = true;
        }
        loco_char c;
        if (!loco_char_create(&setup, &c)) {
            cli_terrain_destroy(terrain);
            rc = 1;
            break;
        }
        c.jump_at = scenes[k].jump_at;
        rec_ctx r;
        loco_record_init(&r, NULL, 12.5);
        loco_metrics m;
        bool finished = false;
        if (!loco_run_path(&c, scenes[k].path, scenes[k].speed, 90, 60, 0, &m, loco_record, &r, &finished)) rc = 1;
        r.bmin[1] -= 1.0f, r.bmax[1] += 2.0f;
        v.side = scenes[k].side;
        if (rc == 0 && !loco_view_scene(&v, &c, terrain, r.frames, 0, r.nframes, r.fps_out, r.bmin, r.bmax, NULL, &err)) {
            fprintf(stderr, "skelanim: demo %s: %s\n", name, err.message);
            rc = 1;
        }
        if (rc == 0)
            printf("%-10s %-18s %.1f m/s%s: %u frames, slide max %.3f cm, contact max %.3f cm, penetration max %.3f cm\n",
                   scenes[k].character, scenes[k].terrain, scenes[k].speed, scenes[k].jump_at >= 0 ? ", a jump" : "",
                   m.frames, 100 * m.slide_max, 100 * m.contact_max, 100 * m.penetration_max);
        loco_record_free(&r);
        loco_char_destroy(&c);
        cli_terrain_destroy(terrain);
    }
    if (rc == 0) {
        skr_gif *g = v.gif;
        v.gif = NULL;
        if (skr_gif_close(g, &err) != SK_OK) {
            fprintf(stderr, "skelanim: demo %s: %s\n", name, err.message);
            rc = 1;
        } else {
            printf("wrote %s (%ux%u, %u frames)\n", out, v.w, v.h, v.frames);
        }
    }
    loco_view_close(&v);
    return rc;
}

static int cmd_demo_locomotion(int argc, char **argv) {
    walks_args a = {NULL, NULL, 0.0};
    cli_seen seen;
    int rc = cli_parse(&cli_cmd_demo_locomotion, argc, argv, &a, &seen);
    if (rc != CLI_CONTINUE) return rc;
    if (a.clips) { /* a capture (a walk, not a loop) drives its own skeleton, drawn as bones */
        static const char *const ts[3] = {"stairs:0.17,0.28", "ramp:10", "bumps:0.08,5"};
        demo_scene cap[3];
        for (int k = 0; k < 3; k++) cap[k] = (demo_scene){a.clips, ts[k], "0,-1 0,5", 1.2, -1, false, true};
        return demo_walks("locomotion", cap, 3, a.scale, a.out);
    }
    if (cli_given(&seen, "--scale")) {
        fprintf(stderr, "skelanim: demo locomotion: --scale goes with --clips FILE\n");
        return 1;
    }
    static const demo_scene scenes[] = {
        {SK_CLI_MANNEQUIN, "stairs:0.17,0.28", "0,-1 0,4.5", 1.2, -1, false, false},
        {SK_CLI_MANNEQUIN, "ramp:10", "0,-1 0,10", 3.0, -1, false, false},
        {SK_CLI_MANNEQUIN, "ramp:30", "0,-1 0,4.5", 1.2, -1, false, false},
        {SK_CLI_MANNEQUIN, "ramp:45", "0,-1 0,4", 1.0, -1, false, false},
        {SK_CLI_MANNEQUIN, "bumps:0.12,3", "0,-1 0,4 4,4", 2.5, -1, false, false},
    };
    return demo_walks("locomotion", scenes, CLI_COUNT(scenes), 0, a.out);
}

static int cmd_demo_procedural(int argc, char **argv) {
    walks_args a = {NULL, NULL, 0.0};
    int rc = cli_parse(&cli_cmd_demo_procedural, argc, argv, &a, NULL);
    if (rc != CLI_CONTINUE) return rc;
    static const demo_scene scenes[] = {
        {SK_CLI_MANNEQUIN, "stairs:0.17,0.28", "0,-1 0,4", 1.0, -1, true, false},
        {SK_CLI_MANNEQUIN, "ramp:45", "0,-1 0,3.5", 0.8, -1, true, false},
        {SK_CLI_MANNEQUIN, "ledge:1", "0,-1 0,0.8 0,3", 1.0, -1, true, false},
        {SK_CLI_MANNEQUIN, "ledge:2.5", "0,-1 0,3", 1.0, -1, true, false}, /* deeper than it is tall: the hang */
        {SK_CLI_MANNEQUIN, "flat", "0,-1 0,4", 1.2, 1.5, true, false},
        {SK_CLI_SPRITE, "stairs:0.17,0.28", "0,-1 0,4", 1.0, -1, true, true},
        /* walkers with four, six and three legs (content/creature.h) */
        {SK_CLI_QUADRUPED, "stairs:0.17,0.28", "0,-1 0,3 2,4", 0.9, -1, true, false},
        {SK_CLI_HEXAPOD, "bumps:0.1,1", "0,-1 0,2 2,3", 0.6, -1, true, false},
        {SK_CLI_TRIPOD, "ramp:10", "0,-1 0,2.5 2,3.5", 0.7, -1, true, false},
    };
    return demo_walks("procedural", scenes, CLI_COUNT(scenes), 0, a.out);
}

static const cli_opt locomotion_opts[] = {
    {"--out", CLI_STRING(walks_args, out), .meta = "FILE.gif", .dflt = "out/locomotion.gif", .help = "the GIF"},
    {"--clips", CLI_STRING(walks_args, clips), .meta = "FILE",
     .help = "instead, a capture (a walk, not a loop: its best cycle) drives its own skeleton, drawn as bones, "
             "over stairs, a 10 degree ramp and bumps"},
    {"--scale", CLI_REAL(walks_args, scale), .meta = "M", .min = 1e-6, .max = 1e6,
     .help = "(--clips) metres per unit of the capture, 0.0564444 for CMU"},
};
const cli_command cli_cmd_demo_locomotion = {
    .name = "demo locomotion",
    .run = cmd_demo_locomotion,
    .summary = "the mannequin\'s feet placed on stairs, ramps, bumps: out/locomotion.gif",
    .about = "The mannequin's walk and run adapted to the ground (seed 002): over stairs, 10, 30 "
             "and 45 degree ramps and bumps, its feet placed on the ground, rendered to "
             "out/locomotion.gif with each walk's foot metrics.",
    .opts = locomotion_opts,
    .nopts = CLI_COUNT(locomotion_opts),
};

static const cli_opt procedural_opts[] = {
    {"--out", CLI_STRING(walks_args, out), .meta = "FILE.gif", .dflt = "out/procedural.gif", .help = "the GIF"},
};
const cli_command cli_cmd_demo_procedural = {
    .name = "demo procedural",
    .run = cmd_demo_procedural,
    .summary = "the IK-only walkers on stairs, a ramp, a ledge, a jump, with 2-6 legs: out/procedural.gif",
    .about = "The IK-only walker (no clips, seed 004) over stairs, a 45-degree ramp, off a ledge, hanging from a deeper one, "
             "a jump, the 2D cut-out character (@sprite) in its side view on stairs, and walkers with four, six and "
             "three legs (@quadruped on stairs, @hexapod on bumps, @tripod on a ramp), rendered to out/procedural.gif "
             "with each walk's foot metrics.",
    .opts = procedural_opts,
    .nopts = CLI_COUNT(procedural_opts),
};
