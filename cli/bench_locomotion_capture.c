/* skelanim bench locomotion: the capture rows (bench_locomotion_capture.h).
 *
 * Each shared CMU walk (02_01, 07_01, 131_01: start, walk, stop) with the run
 * 09_11, retargeted onto the mannequin and onto CesiumMan (locomote --from:
 * the source's rest stood on the ground, planted feet levelled, each clip's
 * best cycle analysed), walks the paths of the mannequin's table (a 90 degree
 * turn) on flat ground, 10/30/45 degree ramps, stairs, bumps and the mesh
 * course; the run (with 02_01 as the walk) runs on flat ground, bumps and the
 * 10 degree ramp; 02_01 played in reverse walks backward, and with the
 * mannequin's strafes sideways (blc_direction_rows).
 * Per row the metrics of skelanim locomote (loco_run.h) and which of the
 * limits it misses:
 *   slide < 0.5 cm per stance, contact < 1 cm, penetration < 1 cm,
 *   stance share per foot at full speed 30-60 % (walks at 0.8-1.5 m/s) or
 *   15-40 % (runs), skate <= 0.15 (walks). */
#include "bench_locomotion.h"
#include "bench_locomotion_capture.h"
#include "cli.h"
#include "loco_maneuver.h"
#include "loco_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BLC_CMU_SCALE 0.056444
#define BLC_RUN "09_11_fbx2bvh.bvh"

typedef struct blc_case { const char *terrain, *path; bool run_ok; } blc_case;

static const blc_case blc_cases[] = {
    {"flat", "0,0 0,6 6,6", true},
    {"ramp:10", "0,0 0,6 6,6", true},
    {"ramp:30", "0,0 0,6 6,6", false},
    {"ramp:45", "0,0 0,6 6,6", false},
    {"stairs:0.17,0.28", "0,0 0,6 6,6", false},
    {"bumps:0.1,1", "0,0 0,6 6,6", true},
    {"course", "0,-1 0,12 6,12", false},
};

static const char *const blc_walks[] = {"02_01.bvh", "07_01_fbx2bvh.bvh", "131_01.bvh"};

static bool blc_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* The character's file: @mannequin or DIR/assets/gltf/CesiumMan/CesiumMan.glb. */
static void blc_character(const char *data, int k, char *out, size_t cap) {
    if (k == 0) snprintf(out, cap, "%s", SK_CLI_MANNEQUIN);
    else snprintf(out, cap, "%s/assets/gltf/CesiumMan/CesiumMan.glb", data);
}

/* The held-out rows' k-th character: the one given, else blc_character's. */
static void blc_held_character(const char *data, const char *given, int k, char *out, size_t cap) {
    if (given) snprintf(out, cap, "%s", given);
    else blc_character(data, k, out, cap);
}

/* The limits every capture row has, as a JSON list's members into out
 * (cap bytes): slide < 0.5 cm per stance, contact and penetration < 1 cm,
 * and the body kept at least BLC_BODY_LOW of its standing height above the
 * planted feet (loco_metrics.body_low: not a limit of issue #34's, ours: the
 * hips pulled down to the floor for a foot out of reach went unseen by the
 * others). Returns the length written. */
#define BLC_BODY_LOW 0.6
static size_t blc_fails(const loco_metrics *m, char *out, size_t cap) {
    size_t n = 0;
    const char *names[4] = {"slide", "contact", "penetration", "body"};
    bool miss[4] = {m->slide_max >= 0.005, m->contact_max >= 0.01, m->penetration_max >= 0.01,
                    m->body_set && m->body_low < BLC_BODY_LOW};
    out[0] = 0;
    for (int k = 0; k < 4; k++)
        if (miss[k]) n += (size_t)snprintf(out + n, cap - n, "%s\"%s\"", n ? "," : "", names[k]);
    return n;
}

/* One row: the character (its clips from walk_file and the run) on a case at a speed. */
/* half: NULL (the shared rows), "reporting" (marked held_out) or "tuning". */
static bool blc_row(loco_char *c, const char *character, const char *capture, bool run, const blc_case *cs,
                    double speed, const char *half) {
    /* the rows walked facing away from the path (blc_direction_rows) */
    const char *dir = c->face == 0.0f ? NULL : fabsf(c->face) > 3.0f ? "backward" : c->face > 0 ? "left" : "right";
    loco_metrics m;
    bool finished = false;
    double t0 = cli_now();
    if (!loco_run_path(c, cs->path, speed, 90, 60, 0, &m, NULL, NULL, &finished)) return false;
    double ms = (cli_now() - t0) * 1e3;
    double skate = m.skate_low ? (double)m.skate_fast / m.skate_low : 0.0;
    double share[SK_MOTION_GROUP_MAX_LEGS];
    for (uint32_t l = 0; l < c->leg_count; l++)
        share[l] = m.moving_frames ? (double)m.moving_stance[l] / m.moving_frames : 0.0;
    /* the limits missed */
    char fails[160] = "";
    size_t n = blc_fails(&m, fails, sizeof fails);
#define BLC_FAIL(name) n += (size_t)snprintf(fails + n, sizeof fails - n, "%s\"%s\"", n ? "," : "", name)
    if (!finished) BLC_FAIL("finished");
    double lo = run ? 0.15 : 0.30, hi = run ? 0.40 : 0.60;
    bool share_ok = true;
    for (uint32_t l = 0; l < c->leg_count; l++) share_ok = share_ok && share[l] >= lo && share[l] <= hi;
    if (!share_ok && (run || (speed >= 0.8 && speed <= 1.5))) BLC_FAIL("stance_share");
    if (!run && skate > 0.15) BLC_FAIL("skate");
#undef BLC_FAIL
    printf("{\"bench\":\"locomotion_capture\",%s\"character\":\"%s\",\"capture\":\"%s\",\"gait\":\"%s\",%s%s%s"
           "\"terrain\":\"%s\",\"path\":\"%s\",\"speed\":%.2f,\"frames\":%u,\"finished\":%s,\"stance_fraction\":[",
           !half ? "" : strcmp(half, "tuning") ? "\"held_out\":true," : "\"half\":\"tuning\",", character, capture, run ? "run" : "walk",
           dir ? "\"direction\":\"" : "", dir ? dir : "", dir ? "\"," : "", cs->terrain, cs->path, speed, m.frames,
           finished ? "true" : "false");
    for (uint32_t l = 0; l < c->leg_count; l++) printf("%s%.3f", l ? "," : "", share[l]);
    printf("],\"stance_fraction_all\":[");
    for (uint32_t l = 0; l < c->leg_count; l++)
        printf("%s%.3f", l ? "," : "", m.frames ? (double)m.stance_frames[l] / m.frames : 0.0);
    /* the legs' mean rest length (hip to ankle) and the speed's Froude
     * number v^2 / (g leg): dynamically similar gaits share it whatever the
     * size (people walk up to about 0.5, cruise at 0.07-0.25) */
    double leg = 0;
    for (uint32_t l = 0; l < c->leg_count; l++) leg += c->an[0]->legs[l].leg_length;
    leg = c->leg_count ? leg / c->leg_count : 0.0;
    double froude = leg > 1e-6 ? speed * speed / (9.81 * leg) : 0.0;
    printf("],\"stance_runs\":%u,\"slide_max_cm\":%.3f,\"slide_mean_cm\":%.3f,\"contact_max_cm\":%.3f,"
           "\"penetration_max_cm\":%.3f,\"skate\":%.3f,\"skate_frames\":%u,\"ik_unreached\":%u,\"body_low\":%.3f,"
           "\"leg_m\":%.3f,\"froude\":%.3f,\"fails\":[%s],\"run_ms\":%.2f}\n",
           m.runs, 100 * m.slide_max, m.runs ? 100 * m.slide_sum / m.runs : 0.0, 100 * m.contact_max,
           100 * m.penetration_max, skate, m.skate_low, m.unreached, m.body_set ? m.body_low : 1.0, leg, froude, fails,
           ms);
    fflush(stdout);
    return true;
}

/* The hard cases (loco_maneuver.h) with the captures: turning in place, a
 * 180 degree turn within a second, sidestepping and stopping mid-stride at
 * 0.5, 1.0 and 1.8 m/s (quick: 1.0; turning in place once), on flat ground. Limits:
 * slide, contact, penetration and, moving, skate; no stance share (these are
 * not cruise walks). */
static bool blc_hard_rows(loco_char *c, const char *character, const char *capture, bool quick) {
    static const double all_speeds[] = {0.5, 1.0, 1.8}, quick_speeds[] = {1.0};
    const double *speeds = quick ? quick_speeds : all_speeds;
    size_t nspeeds = quick ? 1 : CLI_COUNT(all_speeds);
    bool ok = true;
    for (uint32_t k = 0; k < LOCO_MANEUVERS; k++) {
        bool in_place = !strcmp(loco_maneuver_name(k), "turn-in-place");
        for (size_t i = 0; i < (in_place ? 1 : nspeeds); i++) {
            double v = in_place ? 0.0 : speeds[i], twist = 0;
            loco_metrics m;
            if (!loco_run_maneuver(c, k, v, 60, 0, &m, &twist, NULL, NULL)) {
                ok = false;
                continue;
            }
            double skate = m.skate_low ? (double)m.skate_fast / m.skate_low : 0.0;
            char fails[96] = "";
            size_t n = blc_fails(&m, fails, sizeof fails);
            if (skate > 0.15) n += (size_t)snprintf(fails + n, sizeof fails - n, "%s\"skate\"", n ? "," : "");
            printf("{\"bench\":\"locomotion_capture\",\"hard\":\"%s\",\"character\":\"%s\",\"capture\":\"%s\","
                   "\"gait\":\"walk\",\"terrain\":\"flat\",\"speed\":%.2f,\"frames\":%u,\"stance_fraction_all\":[",
                   loco_maneuver_name(k), character, capture, v, m.frames);
            for (uint32_t l = 0; l < c->leg_count; l++)
                printf("%s%.3f", l ? "," : "", m.frames ? (double)m.stance_frames[l] / m.frames : 0.0);
            printf("],\"stance_runs\":%u,\"slide_max_cm\":%.3f,\"slide_mean_cm\":%.3f,\"contact_max_cm\":%.3f,"
                   "\"penetration_max_cm\":%.3f,\"skate\":%.3f,\"skate_frames\":%u,\"ik_unreached\":%u,"
                   "\"foot_twist_max_deg\":%.1f,\"body_low\":%.3f,\"fails\":[%s]}\n",
                   m.runs, 100 * m.slide_max, m.runs ? 100 * m.slide_sum / m.runs : 0.0, 100 * m.contact_max,
                   100 * m.penetration_max, skate, m.skate_low, m.unreached, twist, m.body_set ? m.body_low : 1.0, fails);
            fflush(stdout);
        }
    }
    return ok;
}

/* A character with the clips of walk and the run from data. */
/* The clips of a character: the walk and the run (dir 0); with the walk played in reverse too,
 * walked facing back (dir 1); and the mannequin's strafes retargeted, walked facing the path's
 * left (dir 2) or right (dir 3). */
static bool blc_char(const char *data, int k, const char *walk, const sk_terrain *terrain, int dir, loco_char *c,
                     double *load_ms) {
    char chr[1024], w[1024], r[1024];
    blc_character(data, k, chr, sizeof chr);
    snprintf(w, sizeof w, "%s/mocap/bvh/%s", data, walk);
    snprintf(r, sizeof r, "%s/mocap/bvh/%s", data, BLC_RUN);
    loco_setup s = {.character = chr, .terrain = terrain, .from = {w, r}, .nfrom = 2, .from_scale = BLC_CMU_SCALE};
    if (dir == 1) s.from[1] = w, s.from_reversed[1] = true, s.from[2] = r, s.nfrom = 3;
    if (dir >= 2) {
        s.from[1] = w, s.from_reversed[1] = true;
        s.from[2] = SK_CLI_MANNEQUIN ":strafe_left", s.from[3] = SK_CLI_MANNEQUIN ":strafe_right";
        s.from[4] = r, s.nfrom = 5;
    }
    double t0 = cli_now();
    bool ok = loco_char_create(&s, c);
    static const float faces[4] = {0.0f, (float)M_PI, (float)(M_PI / 2), (float)(-M_PI / 2)};
    if (ok) c->face = faces[dir];
    if (load_ms) *load_ms = (cli_now() - t0) * 1e3;
    return ok;
}

/* A row set's character on terrain spec: 1 when made (*terrain and *c to
 * destroy); 0 when its clips could not be made ready (said on stderr and in
 * an error row naming capture and direction, dir > 0); -1 for a terrain
 * spec that does not parse. */
static int blc_open(const char *data, int k, const char *character, const char *walk, const char *spec, int dir,
                    cli_terrain **terrain, loco_char *c, double *load_ms) {
    static const char *const dirs[4] = {NULL, "backward", "left", "right"};
    sk_error err = {0};
    if (cli_terrain_parse(spec, terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return -1;
    }
    if (blc_char(data, k, walk, &(*terrain)->terrain, dir, c, load_ms)) return 1;
    printf("{\"bench\":\"locomotion_capture\",\"character\":\"%s\",\"capture\":\"%.*s\",%s%s%s\"terrain\":\"%s\","
           "\"error\":\"the clips could not be retargeted or analysed\"}\n",
           character, (int)strcspn(walk, "."), walk, dir ? "\"direction\":\"" : "", dir ? dirs[dir] : "",
           dir ? "\"," : "", spec);
    cli_terrain_destroy(*terrain);
    return 0;
}

/* Walking facing away from the path: backward, the shared walk 02_01 played
 * in reverse (locomote --from-reversed) beside it and the run, walked
 * facing back (--face 180) at 1.0 and 1.4 m/s; sideways, those clips and
 * the mannequin's strafes retargeted (--from @mannequin:strafe_left and
 * _right), walked with the path to the left or the right (--face 90, -90)
 * at 0.8 and 1.0 m/s (the strafes are 0.85 m/s); on flat ground, stairs
 * and the course (ci: flat and stairs at the faster speed). The walks'
 * limits. A person walking backward is not a forward walk reversed (the
 * toe lands first), but the feet plant and lift alike. */
static int blc_direction_rows(blc_which which, const char *data, int k, const char *character) {
    static const char *const terrains[] = {"flat", "stairs:0.17,0.28", "course"};
    static const double speeds[2][2] = {{1.0, 1.4}, {0.8, 1.0}};
    int failures = 0;
    for (int dir = 1; dir <= 3; dir++)
        for (size_t t = 0; t < CLI_COUNT(terrains); t++) {
            const blc_case *cs = NULL;
            for (size_t i = 0; i < CLI_COUNT(blc_cases); i++)
                if (!strcmp(blc_cases[i].terrain, terrains[t])) cs = &blc_cases[i];
            if (!cs || (which != BLC_ALL && !strcmp(terrains[t], "course"))) continue;
            cli_terrain *terrain = NULL;
            loco_char c;
            int o = blc_open(data, k, character, blc_walks[0], cs->terrain, dir, &terrain, &c, NULL);
            if (o < 0) return 1;
            if (o == 0) {
                failures++;
                continue;
            }
            for (size_t sp = which == BLC_ALL ? 0 : 1; sp < 2; sp++)
                if (!blc_row(&c, character, "02_01", false, cs, speeds[dir > 1][sp], NULL)) failures++;
            loco_char_destroy(&c);
            cli_terrain_destroy(terrain);
        }
    return failures;
}

int blc_table(blc_which which, const char *data) {
    if (which == BLC_NONE) return 0;
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/mocap/bvh/%s", data, BLC_RUN);
    if (!blc_exists(probe)) {
        printf("{\"bench\":\"locomotion_capture\",\"missing\":\"%s\",\"note\":\"the shared captures are not there "
               "(--data DIR): no capture rows\"}\n", probe);
        fprintf(stderr, "skelanim: bench locomotion: %s is missing (--data DIR): no capture rows\n", probe);
        return 0;
    }
    static const char *const names[2] = {"mannequin", "CesiumMan"};
    int failures = 0;
    size_t ncases = CLI_COUNT(blc_cases), nwalks = which == BLC_CI ? 1 : CLI_COUNT(blc_walks);
    for (int k = 0; k < 2; k++) {
        for (size_t w = 0; w < nwalks; w++) {
            /* one character per walk; the terrain is set per case (the locomotor reads it at creation) */
            for (size_t i = 0; i < ncases; i++) {
                const blc_case *cs = &blc_cases[i];
                bool ci_case = !strcmp(cs->terrain, "flat") || !strncmp(cs->terrain, "stairs", 6) ||
                               !strcmp(cs->terrain, "course");
                bool walks = which == BLC_ALL || ci_case, runs = cs->run_ok && w == 0 &&
                                                                (which == BLC_ALL || !strcmp(cs->terrain, "flat"));
                if (!walks && !runs) continue;
                cli_terrain *terrain = NULL;
                loco_char c;
                double load_ms = 0;
                int o = blc_open(data, k, names[k], blc_walks[w], cs->terrain, 0, &terrain, &c, &load_ms);
                if (o < 0) return 1;
                if (o == 0) {
                    failures++;
                    continue;
                }
                char capture[64];
                snprintf(capture, sizeof capture, "%.*s", (int)strcspn(blc_walks[w], "."), blc_walks[w]);
                static const double walk_speeds[] = {1.0, 1.4}, run_speeds[] = {3.0, 3.5};
                size_t nsp = which == BLC_ALL ? 2 : 1;
                for (size_t sp = 0; walks && sp < nsp; sp++)
                    if (!blc_row(&c, names[k], capture, false, cs, walk_speeds[which == BLC_ALL ? sp : 1], NULL)) failures++;
                for (size_t sp = 0; runs && sp < nsp; sp++)
                    if (!blc_row(&c, names[k], "09_11_fbx2bvh", true, cs, run_speeds[sp], NULL)) failures++;
                /* the hard cases once per character, with 02_01 and the run, on flat ground */
                if (w == 0 && !strcmp(cs->terrain, "flat") && !blc_hard_rows(&c, names[k], capture, which != BLC_ALL))
                    failures++;
                loco_char_destroy(&c);
                cli_terrain_destroy(terrain);
            }
        }
        failures += blc_direction_rows(which, data, k, names[k]);
    }
    return failures ? 1 : 0;
}

/* One half's walks and runs of a capture folder (DIR/split.tsv: file, half,
 * kind, scale, fps), at most 32 of each. */
static int blc_split(const char *dir, const char *want, char walks[][64], char runs[][64], int *nw, int *nr,
                     double *scale) {
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/split.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    *nw = *nr = 0;
    while (fgets(line, sizeof line, f)) {
        char file[64], half[32], kind[32];
        double sc;
        if (sscanf(line, "%63s %31s %31s %lf", file, half, kind, &sc) != 4 || strcmp(half, want)) continue;
        *scale = sc;
        if (!strcmp(kind, "walk") && *nw < 32) snprintf(walks[(*nw)++], 64, "%s", file);
        if (!strcmp(kind, "run") && *nr < 32) snprintf(runs[(*nr)++], 64, "%s", file);
    }
    fclose(f);
    return 0;
}

int blc_held_out(const char *dir, const char *half, const char *data, const char *character) {
    char walks[32][64], runs[32][64];
    int nw = 0, nr = 0;
    double scale = BLC_CMU_SCALE;
    char chr[1024];
    if (!half) half = "reporting";
    bool tuning = !strcmp(half, "tuning");
    blc_held_character(data, character, 1, chr, sizeof chr);
    if (blc_split(dir, half, walks, runs, &nw, &nr, &scale) != 0 || nw == 0 || nr == 0 ||
        (!blc_exists(chr) && chr[0] != '@')) {
        printf("{\"bench\":\"locomotion_capture\",%s\"missing\":\"%s\",\"note\":\"no %s-half "
               "walks and runs in DIR/split.tsv, or no %s: no rows\"}\n",
               tuning ? "\"half\":\"tuning\"," : "\"held_out\":true,", dir, half,
               character ? "such character" : "CesiumMan under --data");
        fprintf(stderr, "skelanim: bench locomotion: --held-out %s: no split.tsv with %s-half walks and runs, or no "
                "%s: no rows\n", dir, half, character ? character : "CesiumMan (--data)");
        return 1;
    }
    /* the character's name in the rows: the file's name without its folder and extension */
    char given[64];
    const char *base = character ? strrchr(character, '/') : NULL;
    base = base ? base + 1 : character;
    if (character) snprintf(given, sizeof given, "%.*s", (int)strcspn(base, "."), base);
    const char *names[2] = {character ? given : "mannequin", "CesiumMan"};
    int nchar = character ? 1 : 2;
    static const blc_case walk_cases[] = {{"flat", "0,0 0,6 6,6", true}, {"stairs:0.17,0.28", "0,0 0,6 6,6", false},
                                          {"course", "0,-1 0,12 6,12", false}};
    static const blc_case run_case = {"flat", "0,0 0,6 6,6", true};
    int failures = 0;
    for (int k = 0; k < nchar; k++) {
        blc_held_character(data, character, k, chr, sizeof chr);
        /* each walk with the first run; each run with the first walk; then each walk played in
         * reverse beside it and the first run, walked facing back on flat ground */
        for (int i = 0; i < 2 * nw + nr; i++) {
            bool run = i >= nw && i < nw + nr, back = i >= nw + nr;
            if (back) i -= nw + nr;
            const char *wf = run ? walks[0] : walks[i], *rf = run ? runs[i - nw] : runs[0];
            char capture[64];
            snprintf(capture, sizeof capture, "%.*s", (int)strcspn(run ? rf : wf, "."), run ? rf : wf);
            for (size_t t = 0; t < (run || back ? 1 : CLI_COUNT(walk_cases)); t++) {
                const blc_case *cs = run ? &run_case : &walk_cases[t];
                cli_terrain *terrain = NULL;
                sk_error err = {0};
                if (cli_terrain_parse(cs->terrain, &terrain, &err) != SK_OK) {
                    fprintf(stderr, "skelanim: %s\n", err.message);
                    return 1;
                }
                char w[1024], r[1024];
                snprintf(w, sizeof w, "%s/%s", dir, wf);
                snprintf(r, sizeof r, "%s/%s", dir, rf);
                loco_setup s = {.character = chr, .terrain = &terrain->terrain, .from = {w, r}, .nfrom = 2,
                                .from_scale = scale};
                if (back) s.from[1] = w, s.from_reversed[1] = true, s.from[2] = r, s.nfrom = 3;
                loco_char c;
                if (!loco_char_create(&s, &c)) { /* said on stderr */
                    printf("{\"bench\":\"locomotion_capture\",%s\"character\":\"%s\",\"capture\":"
                           "\"%s\",\"gait\":\"%s\",%s\"terrain\":\"%s\",\"error\":\"the clips could not be retargeted "
                           "or analysed\"}\n", tuning ? "\"half\":\"tuning\"," : "\"held_out\":true,", names[k], capture, run ? "run" : "walk",
                           back ? "\"direction\":\"backward\"," : "", cs->terrain);
                    fflush(stdout);
                    cli_terrain_destroy(terrain);
                    continue;
                }
                if (back) c.face = (float)M_PI;
                static const double walk_speeds[] = {1.0, 1.4}, run_speeds[] = {3.0, 3.5};
                for (int sp = 0; sp < 2; sp++)
                    if (!blc_row(&c, names[k], capture, run, cs, run ? run_speeds[sp] : walk_speeds[sp], half)) failures++;
                loco_char_destroy(&c);
                cli_terrain_destroy(terrain);
            }
            if (back) i += nw + nr;
        }
    }
    return failures ? 1 : 0;
}

int blc_cost(uint32_t count, uint32_t frames, uint32_t group, const char *data) {
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/mocap/bvh/%s", data, BLC_RUN);
    if (!blc_exists(probe)) {
        printf("{\"bench\":\"locomotion_capture_cost\",\"missing\":\"%s\"}\n", probe);
        return 0;
    }
    cli_terrain *terrain = NULL;
    sk_error err = {0};
    if (cli_terrain_parse("course", &terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    loco_char c;
    double load_ms = 0;
    if (!blc_char(data, 0, blc_walks[0], &terrain->terrain, 0, &c, &load_ms)) {
        cli_terrain_destroy(terrain);
        return 1;
    }
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"character\":\"mannequin\",\"clips\":[\"02_01\",\"09_11_fbx2bvh\"],\"load_ms\":%.1f,"
             "\"retargeted_at_load\":true",
             load_ms);
    int rc = bl_cost_crowd(&c, "locomotion_capture_cost", extra, count, frames, group);
    loco_char_destroy(&c);
    cli_terrain_destroy(terrain);
    return rc;
}
