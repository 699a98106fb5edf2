/* skelanim locomote: a character walks a path over a terrain, its feet placed
 * by the semi-procedural locomotion runtime (issue #10; seed 002 ch. 5;
 * skelanim/locomotion/locomotor.h). Prints the foot metrics; --trace writes
 * one JSON line per frame, --out renders it. */
#include "cli.h"
#include "loco_run.h"
#include "terrain_spec.h"
#include "skr.h"

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

static void fprint_vec(FILE *f, sk_vec3 v) { fprintf(f, "[%.5f,%.5f,%.5f]", v.x, v.y, v.z); }

static void write_trace(FILE *f, const loco_char *c, double t) {
    loco_feet ft;
    loco_char_feet(c, &ft);
    const sk_skeleton *s = c->asset->skeleton;
    fprintf(f, "{\"t\":%.6f,\"root\":", t);
    fprint_vec(f, ft.root);
    fprintf(f, ",\"feet\":[");
    for (uint32_t l = 0; l < ft.legs; l++) {
        fprintf(f, "%s{\"leg\":\"%s\",\"heel\":", l ? "," : "", loco_char_leg_name(c, l));
        fprint_vec(f, ft.f[l].heel);
        fprintf(f, ",\"toe\":");
        fprint_vec(f, ft.f[l].toe);
        fprintf(f, ",\"ankle\":");
        fprint_vec(f, ft.f[l].ankle);
        fprintf(f, ",\"stance\":%s}", ft.f[l].stance ? "true" : "false");
    }
    fprintf(f, "],\"joints\":{");
    for (uint32_t j = 0; j < s->joint_count; j++) {
        const float *m = c->world[j].m;
        char name[128];
        size_t k = 0;
        for (const char *p = s->names[j]; *p && k + 2 < sizeof name; p++) { /* JSON-escape quotes and backslashes */
            if (*p == '"' || *p == '\\') name[k++] = '\\';
            name[k++] = (unsigned char)*p < 0x20 ? '?' : *p;
        }
        name[k] = 0;
        fprintf(f, "%s\"%s\":[%.5f,%.5f,%.5f]", j ? "," : "", name[0] ? name : "?", m[12], m[13], m[14]);
    }
    fprintf(f, "}}\n");
}

typedef struct frame_rec {
    sk_mat4 *world; /* joint_count */
    sk_vec3 center;
} frame_rec;

typedef struct rec_ctx {
    FILE *trace;
    bool keep_frames;
    double fps_out, next_out;
    frame_rec *frames;
    uint32_t nframes, cap;
    float bmin[3], bmax[3];
} rec_ctx;

static bool record(void *user, const loco_char *c, double t) {
    rec_ctx *r = user;
    loco_feet ft;
    loco_char_feet(c, &ft);
    if (r->trace) write_trace(r->trace, c, t);
    float p[3] = {ft.root.x, ft.root.y, ft.root.z};
    for (int q = 0; q < 3; q++) r->bmin[q] = fminf(r->bmin[q], p[q]), r->bmax[q] = fmaxf(r->bmax[q], p[q]);
    if (!r->keep_frames || t + 1e-9 < r->next_out) return true;
    r->next_out += 1.0 / r->fps_out;
    if (r->nframes == r->cap) {
        uint32_t cap = r->cap ? 2 * r->cap : 64;
        frame_rec *nfr = realloc(r->frames, cap * sizeof *nfr);
        if (!nfr) { fprintf(stderr, "skelanim: out of memory\n"); return false; }
        r->frames = nfr;
        r->cap = cap;
    }
    uint32_t J = c->asset->skeleton->joint_count;
    r->frames[r->nframes].world = malloc(J * sizeof(sk_mat4));
    if (!r->frames[r->nframes].world) { fprintf(stderr, "skelanim: out of memory\n"); return false; }
    memcpy(r->frames[r->nframes].world, c->world, J * sizeof(sk_mat4));
    r->frames[r->nframes].center = ft.root;
    r->nframes++;
    return true;
}

/* Off-screen drawing of walks over terrains, into one GIF or PNG. */
typedef struct loco_view {
    bool side;                /* the side view (seed 004's figures): from +X, bones */
    skr_headless *hd;
    skr_renderer *rn;
    skr_gif *gif;
    unsigned char *rgb;
    uint32_t w, h;
    uint32_t frames;
} loco_view;

static void view_close(loco_view *v) {
    skr_gif_close(v->gif, NULL);
    skr_renderer_destroy(v->rn);
    skr_headless_destroy(v->hd);
    free(v->rgb);
    memset(v, 0, sizeof *v);
}

static bool view_open(loco_view *v, const char *gif_path, uint32_t w, uint32_t h, sk_error *err) {
    memset(v, 0, sizeof *v);
    v->w = w, v->h = h;
    if (!(v->hd = skr_headless_create((int)w, (int)h, 4, err))) return false;
    skr_headless_bind(v->hd);
    if (skr_renderer_create(&v->rn, err) != SK_OK) return false;
    if (!(v->rgb = malloc((size_t)w * h * 3))) {
        sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        return false;
    }
    if (gif_path && skr_gif_open(gif_path, (int)w, (int)h, &v->gif, err) != SK_OK) return false;
    return true;
}

/* Draws frames [first, last) of a walk over its terrain (the GIF's next
 * frames, or one PNG). bmin/bmax: the path's bounds (the terrain drawn
 * around them). */
static bool view_scene(loco_view *v, const loco_char *c, const cli_terrain *terrain, const frame_rec *frames,
                       uint32_t first, uint32_t last, double fps_out, const float bmin[3], const float bmax[3],
                       const char *png, sk_error *err) {
    bool ok = false;
    skr_model *model = NULL;
    skr_terrain *tmesh = NULL;
    sk_mat4 *pal = NULL;
    bool bones = v->side || c->asset->mesh_count == 0;
    if (!bones && skr_model_create(c->asset, 0, &model, err) != SK_OK) goto done;
    float fc[2] = {0.5f * (bmin[0] + bmax[0]), 0.5f * (bmin[2] + bmax[2])};
    float fr = 0.5f * fmaxf(bmax[0] - bmin[0], bmax[2] - bmin[2]) + 3.0f;
    if (terrain && terrain->kind == CLI_TERRAIN_MESH) {
        if (skr_terrain_create_mesh(terrain->asset, &tmesh, err) != SK_OK) goto done;
    } else {
        sk_terrain flat_t;
        sk_terrain_shape flat_s;
        const sk_terrain *tt = terrain ? &terrain->terrain : NULL;
        if (!tt) {
            flat_t = sk_terrain_flat(&flat_s, 0);
            tt = &flat_t;
        }
        skr_terrain_area area = {fc[0] - fr, fc[1] - fr, fc[0] + fr, fc[1] + fr, bmax[1] + 30.0f, bmin[1] - 60.0f, 0};
        if (skr_terrain_create_heightfield(tt, &area, &tmesh, err) != SK_OK) goto done;
    }
    if (!(pal = malloc(sizeof(sk_mat4) * ((model ? skr_model_palette_size(model) : 0) + 1)))) {
        sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    for (uint32_t f = first; f < last; f++) {
        skr_camera cam = {0};
        float target[3] = {frames[f].center.x, frames[f].center.y + 0.85f, frames[f].center.z};
        if (v->side) skr_camera_orbit(&cam, target, 90.0f, 2.0f, 4.5f, (int)v->w, (int)v->h);
        else skr_camera_orbit(&cam, target, -75.0f, 8.0f, 4.0f, (int)v->w, (int)v->h);
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, false, 0, 0, {0, 0}};
        skr_begin_frame(v->rn, &fd);
        skr_draw_terrain(v->rn, tmesh, fc, fr, fd.background);
        if (bones) {
            const float ink[3] = {0.1f, 0.12f, 0.2f};
            skr_draw_skeleton(v->rn, c->asset->skeleton, frames[f].world, ink);
        } else {
            skr_model_palette(model, frames[f].world, pal);
            skr_draw_desc dd = {model, 1, pal, NULL, NULL};
            skr_draw_model(v->rn, &dd);
        }
        skr_headless_read(v->hd, v->rgb);
        if (v->gif) {
            if (skr_gif_add(v->gif, v->rgb, (int)lrint(100.0 / fps_out), err) != SK_OK) goto done;
        } else if (png && skr_write_image(png, v->rgb, (int)v->w, (int)v->h, err) != SK_OK) {
            goto done;
        }
        v->frames++;
    }
    ok = true;
done:
    skr_terrain_destroy(tmesh);
    skr_model_destroy(model);
    free(pal);
    return ok;
}

static int render(const char *out, const loco_char *c, const cli_terrain *terrain, frame_rec *frames, uint32_t nf,
                  double fps_out, double at, uint32_t w, uint32_t h, float bmin[3], float bmax[3], bool side) {
    sk_error err = {0};
    bool gif = ends_with(out, ".gif");
    loco_view v;
    memset(&v, 0, sizeof v);
    uint32_t pick = at >= 0 ? (uint32_t)fmin(at * fps_out, nf - 1.0) : nf / 2;
    bool ok = nf > 0 && view_open(&v, gif ? out : NULL, w, h, &err) && (v.side = side, true) &&
              view_scene(&v, c, terrain, frames, gif ? 0 : pick, gif ? nf : pick + 1, fps_out, bmin, bmax,
                         gif ? NULL : out, &err);
    if (ok && v.gif) {
        skr_gif *g = v.gif;
        v.gif = NULL;
        ok = skr_gif_close(g, &err) == SK_OK;
    }
    uint32_t drawn = v.frames;
    view_close(&v);
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
    rec_ctx rc_ctx = {tf, out != NULL, 25, 0, NULL, 0, 0, {INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    double t0 = cli_now();
    bool finished = false;
    bool ok = loco_run_path(&c, path_text, speed, turn, fps, seconds, &m, record, &rc_ctx, &finished);
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

/* skelanim demo locomotion / demo procedural: walks over terrains, one GIF.
 * locomotion: the mannequin's clips adapted (seed 002) over stairs, 10, 30
 * and 45 degree ramps and bumps; procedural: the IK-only walker (seed 004)
 * over stairs, a 45 degree ramp, off a ledge, a jump, and the planar rig's
 * side view on stairs. */
typedef struct demo_scene {
    const char *character, *terrain, *path;
    double speed, jump_at;
    bool procedural, side;
} demo_scene;

static int demo_walks_scaled(const char *name, const demo_scene *scenes, size_t n, double scale, int argc,
                             char **argv) {
    char dflt[64];
    snprintf(dflt, sizeof dflt, "out/%s.gif", name);
    const char *out = dflt;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else {
            fprintf(stderr, "usage: skelanim demo %s [--out FILE.gif]\n", name);
            return 1;
        }
    }
    if (!ends_with(out, ".gif")) {
        fprintf(stderr, "skelanim: demo %s: --out %s: expected a .gif file\n", name, out);
        return 1;
    }
    if (!cli_make_parent_dir(out)) return 1;
    sk_error err = {0};
    loco_view v;
    if (!view_open(&v, out, 400, 300, &err)) {
        fprintf(stderr, "skelanim: demo %s: %s\n", name, err.message);
        view_close(&v);
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
        bool capture = strcmp(scenes[k].character, SK_CLI_MANNEQUIN) && strcmp(scenes[k].character, SK_CLI_PLANAR);
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
        rec_ctx r = {NULL, true, 12.5, 0, NULL, 0, 0, {INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
        loco_metrics m;
        bool finished = false;
        if (!loco_run_path(&c, scenes[k].path, scenes[k].speed, 90, 60, 0, &m, record, &r, &finished)) rc = 1;
        r.bmin[1] -= 1.0f, r.bmax[1] += 2.0f;
        v.side = scenes[k].side;
        if (rc == 0 && !view_scene(&v, &c, terrain, r.frames, 0, r.nframes, r.fps_out, r.bmin, r.bmax, NULL, &err)) {
            fprintf(stderr, "skelanim: demo %s: %s\n", name, err.message);
            rc = 1;
        }
        if (rc == 0)
            printf("%-10s %-18s %.1f m/s%s: %u frames, slide max %.3f cm, contact max %.3f cm, penetration max %.3f cm\n",
                   scenes[k].character, scenes[k].terrain, scenes[k].speed, scenes[k].jump_at >= 0 ? ", a jump" : "",
                   m.frames, 100 * m.slide_max, 100 * m.contact_max, 100 * m.penetration_max);
        for (uint32_t i = 0; i < r.nframes; i++) free(r.frames[i].world);
        free(r.frames);
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
    view_close(&v);
    return rc;
}

static int demo_walks(const char *name, const demo_scene *scenes, size_t n, int argc, char **argv) {
    return demo_walks_scaled(name, scenes, n, 0, argc, argv);
}

int cmd_demo_locomotion(int argc, char **argv) {
    /* --clips FILE [--scale M]: a capture (a walk, not a loop) drives its own
     * skeleton, drawn as bones, over stairs, a 10 degree ramp and bumps */
    if (argc >= 2 && !strcmp(argv[0], "--clips")) {
        static demo_scene cap[3];
        const char *file = argv[1];
        double scale = 0;
        int rest = 2;
        if (argc >= 4 && !strcmp(argv[2], "--scale")) {
            if (!cli_parse_real("--scale", argv[3], 1e-6, 1e6, &scale)) return 1;
            rest = 4;
        }
        static const char *const ts[3] = {"stairs:0.17,0.28", "ramp:10", "bumps:0.08,5"};
        for (int k = 0; k < 3; k++) cap[k] = (demo_scene){file, ts[k], "0,-1 0,5", 1.2, -1, false, true};
        return demo_walks_scaled("locomotion", cap, 3, scale, argc - rest, argv + rest);
    }
    static const demo_scene scenes[] = {
        {SK_CLI_MANNEQUIN, "stairs:0.17,0.28", "0,-1 0,4.5", 1.2, -1, false, false},
        {SK_CLI_MANNEQUIN, "ramp:10", "0,-1 0,10", 3.0, -1, false, false},
        {SK_CLI_MANNEQUIN, "ramp:30", "0,-1 0,4.5", 1.2, -1, false, false},
        {SK_CLI_MANNEQUIN, "ramp:45", "0,-1 0,4", 1.0, -1, false, false},
        {SK_CLI_MANNEQUIN, "bumps:0.12,3", "0,-1 0,4 4,4", 2.5, -1, false, false},
    };
    return demo_walks("locomotion", scenes, sizeof scenes / sizeof scenes[0], argc, argv);
}

int cmd_demo_procedural(int argc, char **argv) {
    static const demo_scene scenes[] = {
        {SK_CLI_MANNEQUIN, "stairs:0.17,0.28", "0,-1 0,4", 1.0, -1, true, false},
        {SK_CLI_MANNEQUIN, "ramp:45", "0,-1 0,3.5", 0.8, -1, true, false},
        {SK_CLI_MANNEQUIN, "ledge:1", "0,-1 0,0.8 0,3", 1.0, -1, true, false},
        {SK_CLI_MANNEQUIN, "flat", "0,-1 0,4", 1.2, 1.5, true, false},
        {SK_CLI_PLANAR, "stairs:0.17,0.28", "0,-1 0,4", 1.0, -1, true, true},
    };
    return demo_walks("procedural", scenes, sizeof scenes / sizeof scenes[0], argc, argv);
}
