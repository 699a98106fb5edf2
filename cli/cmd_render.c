/* skelanim render: the same shaders as the viewer on an off-screen context
 * (EGL surfaceless, Mesa's software rasteriser: no display or GPU needed).
 * GPU skinning in the vertex shader; --cpu skins on the CPU instead. */
#include "cli.h"
#include "skr.h"
#include "ik_scene.h"
#include "retarget_run.h"
#include "terrain_spec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *e) {
    size_t n = strlen(s), m = strlen(e);
    return n >= m && strcmp(s + n - m, e) == 0;
}

typedef struct render_args {
    const char *file, *clip, *out, *ik_chain, *ik_legs, *camera, *terrain, *beside;
    double time, fps, azimuth, elevation, slope, scale, background[3];
    int ik; /* index into "reach|slope" (when given) */
    uint32_t frames, size[2];
    bool cpu, no_grid;
} render_args;

/* What the options ask for, checked: the IK scene, the camera, the file kind, the frames. */
typedef struct render_plan {
    skr_ik_mode mode;
    double az, el;
    char chain_root[256], chain_tip[256];
    bool gif;
    uint32_t frames, w, h;
} render_plan;

static bool render_plan_make(const render_args *a, const cli_seen *seen, render_plan *p) {
    memset(p, 0, sizeof *p);
    p->az = a->azimuth, p->el = a->elevation;
    bool az_set = cli_given(seen, "--azimuth"), el_set = cli_given(seen, "--elevation");
    const char *camera = a->camera;
    if (cli_given(seen, "--ik")) {
        p->mode = a->ik == 0 ? SKR_IK_REACH : SKR_IK_SLOPE;
        if (!az_set && !camera) p->az = p->mode == SKR_IK_REACH ? -50.0 : 65.0; /* the reaching arm's side; the slope's side */
        if (!el_set && !camera && p->mode == SKR_IK_SLOPE) p->el = 8.0;
    }
    if ((a->ik_chain && p->mode != SKR_IK_REACH) || (a->ik_legs && p->mode != SKR_IK_SLOPE)) {
        fprintf(stderr, "skelanim: --ik-chain goes with --ik reach, --ik-legs with --ik slope\n");
        return false;
    }
    if (a->beside && (p->mode || a->terrain)) {
        fprintf(stderr, "skelanim: --beside does not go with --ik or --terrain\n");
        return false;
    }
    if (a->terrain && p->mode) {
        fprintf(stderr, "skelanim: --terrain does not go with --ik (the IK scenes bring their own ground)\n");
        return false;
    }
    if (a->terrain && !camera) { /* from the side: the terrain ahead (+Z) does not hide the feet */
        if (!az_set) p->az = -110.0;
        if (!el_set) p->el = 20.0;
    }
    if (a->ik_chain && sscanf(a->ik_chain, "%255[^:]:%255s", p->chain_root, p->chain_tip) != 2) {
        fprintf(stderr, "skelanim: --ik-chain %s: expected ROOT:TIP\n", a->ik_chain);
        return false;
    }
    if (camera && strcmp(camera, "auto")) {
        static const struct { const char *name; double az, el; } views[] = {
            {"front", 0, 10}, {"back", 180, 10}, {"left", 90, 10}, {"right", -90, 10}, {"top", 0, 89}};
        bool found = false;
        for (size_t k = 0; k < sizeof views / sizeof views[0]; k++)
            if (!strcmp(camera, views[k].name)) p->az = views[k].az, p->el = views[k].el, found = true;
        double ae[2];
        if (!found) {
            char why[160];
            if (!cli_numbers(camera, ',', 2, CLI_NUM_REAL, -3600.0, 3600.0, ae, why, sizeof why)) {
                fprintf(stderr, "skelanim: --camera: '%s' %s (expected auto, front, back, left, right, top or AZ,EL)\n",
                        camera, why);
                return false;
            }
            p->az = ae[0], p->el = ae[1];
        }
        if (!(fabs(p->el) < 90.0) || !isfinite(p->az)) {
            fprintf(stderr, "skelanim: --camera %s: elevation must be within (-90, 90) degrees\n", camera);
            return false;
        }
    }
    p->gif = ends_with(a->out, ".gif");
    if (!p->gif && !ends_with(a->out, ".png")) {
        fprintf(stderr, "skelanim: --out %s: expected a .png or .gif file\n", a->out);
        return false;
    }
    p->frames = a->frames ? a->frames : p->gif ? 30 : 1;
    p->w = a->size[0], p->h = a->size[1];
    return true;
}

/* Every frame posed (palettes or bone matrices kept), the bounds over them, and the drawing. */
typedef struct render_job render_job;
struct render_job {
    const render_args *a;
    const render_plan *p;
    const sk_asset *asset;
    const sk_skeleton *s;
    int32_t clip;
    const sk_clip *clipp;   /* when set, played instead of asset->clips[clip] (--beside's retargeted clip) */
    skr_ik_scene ik;
    skr_model *model;       /* NULL: drawn as bones */
    bool bones;
    uint32_t n, np, nv, wstride;
    sk_transform *local;
    sk_mat4 *world, *pal, *bone_worlds;
    float *weights, *cpu_v;
    sk_vec3 *targets;
    float bmin[3], bmax[3], root0[3], root1[3], ground;
    double ik_worst;
    uint32_t ik_unreached;
    cli_terrain *terrain;
    skr_terrain *tmesh;
    float fade_center[2], fade_radius;
    render_job *beside; /* --beside: the target drawn with this one */
};

static bool render_alloc(render_job *J) {
    uint32_t n = J->n, frames = J->p->frames;
    J->local = calloc(n ? n : 1, sizeof *J->local);
    J->world = calloc(n ? n : 1, sizeof *J->world);
    J->pal = calloc((size_t)frames * (J->np ? J->np : 1), sizeof *J->pal);
    J->weights = calloc((size_t)frames * J->wstride, sizeof *J->weights);
    J->cpu_v = J->a->cpu ? calloc((size_t)J->nv * 6 + 1, sizeof *J->cpu_v) : NULL;
    J->targets = calloc(frames, sizeof *J->targets);
    if (!J->local || !J->world || !J->pal || !J->weights || !J->targets || (J->a->cpu && !J->cpu_v)) return false;
    return !J->bones || (J->bone_worlds = calloc((size_t)frames * n, sizeof *J->bone_worlds)) != NULL;
}

static void render_free(render_job *J) {
    skr_terrain_destroy(J->tmesh);
    cli_terrain_destroy(J->terrain);
    skr_model_destroy(J->model);
    free(J->bone_worlds);
    free(J->local), free(J->world), free(J->pal), free(J->weights), free(J->cpu_v), free(J->targets);
}

/* Pose every frame first: the camera frames the animated bounds of all of them. */
static bool render_pose(render_job *J, sk_error *err) {
    const sk_skeleton *s = J->s;
    uint32_t n = J->n, np = J->np, frames = J->p->frames;
    skr_ik_mode mode = J->p->mode;
    for (int k = 0; k < 3; k++) J->bmin[k] = INFINITY, J->bmax[k] = -INFINITY, J->root0[k] = 0;
    for (uint32_t f = 0; f < frames; f++) {
        double t = J->a->time + f / J->a->fps;
        float *wf = J->weights + (size_t)f * J->wstride;
        if (mode) {
            skr_ik_frame info;
            if (skr_ik_scene_pose(&J->ik, t, f, frames, J->local, J->world, wf, NULL, NULL, &info, err) != SK_OK)
                return false;
            J->targets[f] = info.target;
            if (mode == SKR_IK_REACH) {
                if (info.result.reachable) J->ik_worst = fmax(J->ik_worst, info.result.error);
                else J->ik_unreached++;
            } else
                for (int k = 0; k < 2; k++) J->ik_worst = fmax(J->ik_worst, info.leg_result[k].error);
        } else {
            if (J->clipp) sk_clip_sample(J->clipp, s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, J->local, wf), NULL);
            else if (J->clip >= 0) sk_clip_sample(J->asset->clips[J->clip], s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, J->local, wf), NULL);
            else sk_pose_rest(s, SK_POSE_OF(s, J->local, wf), NULL);
            sk_local_to_model(s, SK_POSE_OF(s, J->local, NULL), NULL, J->world, s->joint_count, NULL);
        }
        if (f == 0 && n) memcpy(J->root0, &J->world[0].m[12], sizeof J->root0);
        if (n) memcpy(J->root1, &J->world[0].m[12], sizeof J->root1);
        if (J->model) skr_model_palette(J->model, J->world, J->pal + (size_t)f * np);
        if (mode == SKR_IK_REACH)
            for (int k = 0; k < 3; k++) { /* keep the target path in the picture */
                float v = k == 0 ? J->targets[f].x : k == 1 ? J->targets[f].y : J->targets[f].z;
                J->bmin[k] = fminf(J->bmin[k], v), J->bmax[k] = fmaxf(J->bmax[k], v);
            }
        if (J->model) skr_model_bounds(J->model, J->pal + (size_t)f * np, wf, J->bmin, J->bmax);
        if (J->bones) {
            memcpy(J->bone_worlds + (size_t)f * n, J->world, (size_t)n * sizeof *J->world);
            for (uint32_t j = 0; j < n; j++)
                for (int k = 0; k < 3; k++)
                    J->bmin[k] = fminf(J->bmin[k], J->world[j].m[12 + k]), J->bmax[k] = fmaxf(J->bmax[k], J->world[j].m[12 + k]);
        }
    }
    J->ground = mode == SKR_IK_SLOPE ? 0.0f : J->bmin[1];
    if (mode == SKR_IK_REACH && J->model) { /* the target may go below the feet: the ground stays under them */
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t f = 0; f < frames; f++)
            skr_model_bounds(J->model, J->pal + (size_t)f * np, J->weights + (size_t)f * J->wstride, lo, hi);
        J->ground = lo[1];
    }
    return true;
}

/* The character stands on the terrain at frame 0: its lowest point over the
 * frames (where the grid would be) goes to the ground under its root; every
 * frame moves by the same offset. The framed box takes in the terrain within
 * 1.5 m of the character; the terrain is drawn over a square 3 m wider,
 * fading out towards its edge. */
static bool render_terrain(render_job *J, sk_error *err) {
    const cli_terrain *terrain = J->terrain;
    float *bmin = J->bmin, *bmax = J->bmax, *root0 = J->root0;
    float top = fmaxf(bmax[1], root0[1]) + 50.0f, dy = 0;
    sk_terrain_hit hit;
    if (sk_terrain_height(&terrain->terrain, root0[0], root0[2], top, 1e5f, &hit)) dy = hit.point.y - bmin[1];
    else
        fprintf(stderr, "skelanim: note: the terrain has no ground under the root at x %.3g, z %.3g: the character "
                        "keeps its height\n", (double)root0[0], (double)root0[2]);
    for (uint32_t k = 0; k < (size_t)J->p->frames * J->np; k++) J->pal[k].m[13] += dy;
    bmin[1] += dy, bmax[1] += dy;
    J->ground = bmin[1];
    const float margin = 1.5f;
    float lo[2] = {bmin[0] - margin, bmin[2] - margin}, hi[2] = {bmax[0] + margin, bmax[2] + margin};
    float ytop = bmax[1] + 50.0f;
    for (int iz = 0; iz <= 30; iz++)
        for (int ix = 0; ix <= 30; ix++) {
            float x = lo[0] + (hi[0] - lo[0]) * ix / 30.0f, z = lo[1] + (hi[1] - lo[1]) * iz / 30.0f;
            if (!sk_terrain_height(&terrain->terrain, x, z, ytop, 1e5f, &hit)) continue;
            float p[3] = {x, hit.point.y, z};
            for (int k = 0; k < 3; k++) bmin[k] = fminf(bmin[k], p[k]), bmax[k] = fmaxf(bmax[k], p[k]);
        }
    float *fc = J->fade_center;
    fc[0] = 0.5f * (bmin[0] + bmax[0]), fc[1] = 0.5f * (bmin[2] + bmax[2]);
    J->fade_radius = 0.5f * fmaxf(bmax[0] - bmin[0], bmax[2] - bmin[2]) + 3.0f;
    if (terrain->kind == CLI_TERRAIN_MESH) {
        if (skr_terrain_create_mesh(terrain->asset, &J->tmesh, err) != SK_OK) return false;
    } else {
        /* the rays start above the highest ground of the square: ramps and stairs climb on */
        double climb = terrain->kind == CLI_TERRAIN_RAMP     ? tan(fmin(fabs(terrain->params[0]), 89.0) * M_PI / 180.0)
                       : terrain->kind == CLI_TERRAIN_STAIRS ? fabs(terrain->params[0]) / terrain->params[1]
                                                             : 0.0;
        float r = J->fade_radius, reach = (float)fmin(climb * 3.0 * r, 1e5);
        skr_terrain_area area = {fc[0] - r, fc[1] - r, fc[0] + r, fc[1] + r, bmax[1] + 20.0f + reach,
                                 bmin[1] - 100.0f - reach, 0};
        if (skr_terrain_create_heightfield(&terrain->terrain, &area, &J->tmesh, err) != SK_OK) return false;
    }
    double up = fabs((double)dy) < 5e-4 ? 0.0 : (double)dy; /* no "-0.000" */
    printf("terrain: %s; the character %s %.3f m to stand on it (the ground under its root at x %.3g, z %.3g)\n",
           terrain->description, up < 0.0 ? "moved down" : "moved up", fabs(up), (double)root0[0], (double)root0[2]);
    return true;
}

/* The character of J at frame f (its model or its bones). */
static bool render_draw_character(render_job *J, skr_renderer *rn, uint32_t f, sk_error *err) {
    skr_draw_desc dd = {J->model, 1, J->pal + (size_t)f * J->np, NULL, NULL};
    if (J->a->cpu && !J->bones) {
        if (skr_model_skin_cpu(J->model, J->pal + (size_t)f * J->np, J->weights + (size_t)f * J->wstride, SK_SKIN_LBS,
                               SK_SIMD_AUTO, J->cpu_v, err) != SK_OK)
            return false;
        dd.palettes = NULL;
        dd.cpu_vertices = J->cpu_v;
    }
    if (J->bones) {
        const float bone_rgb[3] = {0.15f, 0.25f, 0.55f};
        skr_draw_skeleton(rn, J->s, J->bone_worlds + (size_t)f * J->n, bone_rgb);
    } else
        skr_draw_model(rn, &dd);
    return true;
}

/* --beside: B (the target, posed like J) moved sideways, across J's direction
 * of travel, by the sum of both characters' widths across it; the framed
 * bounds and the ground take in both. */
static void render_beside_place(render_job *J, render_job *B) {
    float dx = J->root1[0] - J->root0[0], dz = J->root1[2] - J->root0[2], len = sqrtf(dx * dx + dz * dz);
    float side[2] = {1.0f, 0.0f};
    float size = fmaxf(J->bmax[1] - J->bmin[1], 1e-6f);
    if (len > 0.1f * size) side[0] = -dz / len, side[1] = dx / len; /* across the travel */
    /* Widths across the travel: the extent of each one's bounds along side. */
    float wj = fabsf(side[0]) * (J->bmax[0] - J->bmin[0]) + fabsf(side[1]) * (J->bmax[2] - J->bmin[2]);
    float wb = fabsf(side[0]) * (B->bmax[0] - B->bmin[0]) + fabsf(side[1]) * (B->bmax[2] - B->bmin[2]);
    /* Centre B on J's centre, then move it over. */
    float cj[2] = {0.5f * (J->bmin[0] + J->bmax[0]), 0.5f * (J->bmin[2] + J->bmax[2])};
    float cb[2] = {0.5f * (B->bmin[0] + B->bmax[0]), 0.5f * (B->bmin[2] + B->bmax[2])};
    float gap = fmaxf(wj + wb, 0.3f * size);
    float off[2] = {cj[0] - cb[0] + side[0] * gap, cj[1] - cb[1] + side[1] * gap};
    float dy = J->bmin[1] - B->bmin[1]; /* both on one ground */
    for (size_t k = 0; k < (size_t)J->p->frames * B->np; k++) B->pal[k].m[12] += off[0], B->pal[k].m[13] += dy, B->pal[k].m[14] += off[1];
    if (B->bones)
        for (size_t k = 0; k < (size_t)J->p->frames * B->n; k++)
            B->bone_worlds[k].m[12] += off[0], B->bone_worlds[k].m[13] += dy, B->bone_worlds[k].m[14] += off[1];
    B->bmin[0] += off[0], B->bmax[0] += off[0], B->bmin[2] += off[1], B->bmax[2] += off[1];
    B->bmin[1] += dy, B->bmax[1] += dy;
    for (int k = 0; k < 3; k++) J->bmin[k] = fminf(J->bmin[k], B->bmin[k]), J->bmax[k] = fmaxf(J->bmax[k], B->bmax[k]);
    J->ground = fminf(J->ground, B->ground + dy);
}

/* Frame f drawn (the posed model or bones, the terrain, the IK target) into rgb. */
static bool render_draw(render_job *J, skr_headless *hd, skr_renderer *rn, const skr_camera *cam, uint32_t f,
                        unsigned char *rgb, sk_error *err) {
    const double *bg = J->a->background;
    skr_frame_desc fd = {cam, {(float)bg[0], (float)bg[1], (float)bg[2]}, !J->terrain && !J->a->no_grid, J->ground, 0, {0, 0}};
    if (J->p->mode == SKR_IK_SLOPE) { /* a patch of slope around the walk: a whole tilted plane would fill the sky */
        fd.ground_slope[1] = tanf(J->ik.slope);
        fd.grid_extent = 0.5f * fmaxf(J->bmax[0] - J->bmin[0], J->bmax[2] - J->bmin[2]) + 1.5f;
    }
    skr_begin_frame(rn, &fd);
    if (J->tmesh) skr_draw_terrain(rn, J->tmesh, J->fade_center, J->fade_radius, fd.background);
    if (!render_draw_character(J, rn, f, err) || (J->beside && !render_draw_character(J->beside, rn, f, err))) return false;
    if (J->p->mode == SKR_IK_REACH) {
        const float red[3] = {0.9f, 0.1f, 0.1f};
        const float p[3] = {J->targets[f].x, J->targets[f].y, J->targets[f].z};
        skr_draw_target(rn, p, 0.08f * J->ik.arm_length, red);
    }
    skr_headless_read(hd, rgb);
    return true;
}

/* Every frame into the GIF, the PNG, or the numbered PNGs; then what was written. */
static bool render_write(render_job *J, skr_headless *hd, skr_renderer *rn, sk_error *err) {
    const render_plan *p = J->p;
    const char *out = J->a->out;
    uint32_t w = p->w, h = p->h, frames = p->frames;
    skr_camera cam = {0}; /* fov_y 0: the default field of view */
    skr_camera_frame(&cam, J->bmin, J->bmax, (float)p->az, (float)p->el, (int)w, (int)h);
    unsigned char *rgb = malloc((size_t)w * h * 3);
    skr_gif *g = NULL;
    bool ok = rgb && (!p->gif || skr_gif_open(out, (int)w, (int)h, &g, err) == SK_OK);
    for (uint32_t f = 0; ok && f < frames; f++) {
        ok = render_draw(J, hd, rn, &cam, f, rgb, err);
        if (!ok) break;
        if (p->gif) {
            ok = skr_gif_add(g, rgb, (int)lrint(100.0 / J->a->fps), err) == SK_OK;
        } else if (frames == 1) {
            ok = skr_write_image(out, rgb, (int)w, (int)h, err) == SK_OK;
        } else { /* PNG frames: NAME.png -> NAME-000.png, NAME-001.png, ... */
            char path[4096];
            snprintf(path, sizeof path, "%.*s-%03u.png", (int)(strlen(out) - 4), out, f);
            ok = skr_write_image(path, rgb, (int)w, (int)h, err) == SK_OK;
        }
    }
    if (g) {
        skr_gif *gg = g;
        g = NULL;
        if (ok) ok = skr_gif_close(gg, err) == SK_OK;
        else skr_gif_close(gg, NULL);
    }
    free(rgb);
    if (!ok) return false;
    if (!p->gif && frames > 1)
        printf("wrote %.*s-000.png ... -%03u.png (%ux%u, %u frames)\n", (int)(strlen(out) - 4), out, frames - 1, w, h,
               frames);
    else printf("wrote %s (%ux%u, %u frame%s)\n", out, w, h, frames, frames == 1 ? "" : "s");
    if (p->mode == SKR_IK_REACH)
        printf("IK reach: %u of %u frames reachable, largest hand-to-target distance there %.3g m; %u beyond reach "
               "(arm straight, pointing at the target)\n",
               frames - J->ik_unreached, frames, J->ik_worst, J->ik_unreached);
    else if (p->mode == SKR_IK_SLOPE)
        printf("IK slope: %.1f degrees, largest ankle-to-target distance %.3g m over %u frames\n", J->a->slope,
               J->ik_worst, frames);
    return true;
}

/* --beside TARGET: B is the target playing J's clip retargeted (contacts restored), posed like J. */
static bool render_beside_setup(render_job *J, render_job *B, sk_asset **target, cli_retarget *rt, sk_clip **baked,
                                sk_error *err) {
    const render_args *a = J->a;
    if (J->clip < 0 && !J->clipp) {
        fprintf(stderr, "skelanim: render: --beside: %s has no clip to retarget\n", a->file);
        return false;
    }
    if (!cli_load(a->beside, target)) return false;
    if (cli_retarget_open(J->asset, *target, NULL, rt, err) != SK_OK ||
        cli_retarget_bake(rt, J->asset->clips[J->clip], true, baked, NULL, err) != SK_OK) {
        fprintf(stderr, "skelanim: render: --beside %s: %s\n", a->beside, err->message);
        err->message[0] = 0;
        return false;
    }
    memset(B, 0, sizeof *B);
    B->a = a, B->p = J->p, B->asset = *target, B->s = (*target)->skeleton, B->clip = -1, B->clipp = *baked;
    B->bones = (*target)->mesh_count == 0 && B->s->joint_count > 0;
    if (!B->bones && skr_model_create(*target, 0, &B->model, err) != SK_OK) return false;
    B->n = B->s->joint_count, B->wstride = B->s->weight_total + 1;
    B->np = B->model ? skr_model_palette_size(B->model) : 0, B->nv = B->model ? skr_model_vertex_count(B->model) : 0;
    if (!render_alloc(B)) return false;
    if (!render_pose(B, err)) return false;
    if (!(B->bmin[0] <= B->bmax[0])) {
        fprintf(stderr, "skelanim: render: --beside %s: nothing to draw\n", a->beside);
        return false;
    }
    render_beside_place(J, B);
    J->beside = B;
    return true;
}

static int cmd_render(int argc, char **argv) {
    render_args args;
    memset(&args, 0, sizeof args);
    cli_seen seen;
    render_plan plan;
    int rc = cli_parse(&cli_cmd_render, argc, argv, &args, &seen);
    if (rc != CLI_CONTINUE) return rc;
    if (!render_plan_make(&args, &seen, &plan)) return 1;
    render_job J, B;
    memset(&J, 0, sizeof J);
    memset(&B, 0, sizeof B);
    sk_asset *target = NULL;
    cli_retarget rt;
    memset(&rt, 0, sizeof rt);
    sk_clip *baked = NULL;
    J.a = &args, J.p = &plan;
    sk_asset *asset = NULL;
    skr_headless *hd = NULL;
    skr_renderer *rn = NULL;
    sk_error err = {0};
    rc = 1;
    if (args.terrain && cli_terrain_parse(args.terrain, &J.terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    if (!cli_load_scaled(args.file, args.scale, &asset)) goto done;
    J.asset = asset, J.s = asset->skeleton;
    J.clip = asset->clip_count ? 0 : -1;
    if (plan.mode && !args.clip) { /* idle under the reach, walk on the slope, when the file has them */
        int32_t c = sk_asset_find_clip(asset, plan.mode == SKR_IK_REACH ? "idle" : "walk");
        if (c >= 0) J.clip = c;
    }
    if (args.clip && (J.clip = cli_find_clip(asset, args.clip)) == -2) goto done;
    if (plan.mode && skr_ik_scene_init(&J.ik, asset, plan.mode, J.clip, args.ik_chain ? plan.chain_root : NULL,
                                       args.ik_chain ? plan.chain_tip : NULL, args.ik_legs, (float)args.slope,
                                       &err) != SK_OK)
        goto fail;
    if (!(hd = skr_headless_create((int)plan.w, (int)plan.h, 4, &err))) goto fail;
    skr_headless_bind(hd);
    if (skr_renderer_create(&rn, &err) != SK_OK) goto fail;
    /* A file without meshes (a .bvh, or bare nodes) is drawn as bones: no model. */
    J.bones = asset->mesh_count == 0 && J.s->joint_count > 0;
    if (!J.bones && skr_model_create(asset, 0, &J.model, &err) != SK_OK) goto fail;
    J.n = J.s->joint_count, J.wstride = J.s->weight_total + 1;
    J.np = J.model ? skr_model_palette_size(J.model) : 0, J.nv = J.model ? skr_model_vertex_count(J.model) : 0;
    if (!render_alloc(&J)) goto done;
    if (!render_pose(&J, &err)) goto fail;
    if (!(J.bmin[0] <= J.bmax[0])) {
        fprintf(stderr, "skelanim: %s: nothing to draw (no triangle meshes and no joints)\n", args.file);
        goto done;
    }
    if (args.beside && !render_beside_setup(&J, &B, &target, &rt, &baked, &err)) {
        if (err.message[0]) goto fail;
        goto done;
    }
    if (J.terrain && !render_terrain(&J, &err)) goto fail;
    if (!render_write(&J, hd, rn, &err)) goto fail;
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: render: %s\n", err.message[0] ? err.message : "failed");
done:
    render_free(&B);
    sk_clip_destroy(baked);
    cli_retarget_close(&rt);
    sk_asset_destroy(target);
    render_free(&J);
    skr_renderer_destroy(rn);
    skr_headless_destroy(hd);
    sk_asset_destroy(asset);
    return rc;
}

static const cli_opt render_opts[] = {
    {"--out", CLI_STRING(render_args, out), .flags = CLI_REQUIRED, .meta = "FILE.png|FILE.gif",
     .help = "the image: a PNG, with --frames N a sequence FILE-000.png ..., or an animated GIF"},
    {"--clip", CLI_STRING(render_args, clip), .meta = "NAME|INDEX|none",
     .help = "the clip", .dflt_text = "the first; with --ik: idle for reach, walk for slope, when the file has them"},
    {"--time", CLI_REAL(render_args, time), .meta = "T", .min = -CLI_TIME_MAX, .max = CLI_TIME_MAX, .dflt = "0",
     .help = "the time of the first frame, seconds"},
    {"--frames", CLI_INT(render_args, frames), .meta = "N", .min = 0, .max = 2000,
     .help = "frames to draw", .dflt_text = "30 for a GIF, else 1"},
    {"--fps", CLI_REAL(render_args, fps), .meta = "F", .min = 1e-3, .max = 100, .dflt = "15",
     .help = "frames per second"},
    {"--size", CLI_INTS(render_args, size, 2, 'x'), .meta = "WxH", .min = 16, .max = 4096, .dflt = "480x480",
     .help = "the image's size in pixels"},
    {"--camera", CLI_STRING(render_args, camera), .meta = "auto|front|back|left|right|top|AZ,EL",
     .help = "the view: auto frames the animated bounds from --azimuth and --elevation; AZ,EL in degrees"},
    {"--azimuth", CLI_REAL(render_args, azimuth), .meta = "DEG", .min = -3600, .max = 3600, .dflt = "35",
     .help = "the camera's azimuth; -110 with --terrain, the arm's or the slope's side with --ik"},
    {"--elevation", CLI_REAL(render_args, elevation), .meta = "DEG", .min = -90, .max = 90, .dflt = "12",
     .help = "the camera's elevation; 20 with --terrain, 8 with --ik slope"},
    CLI_OPT_SCALE(render_args, scale),
    {"--cpu", CLI_FLAG(render_args, cpu), .help = "skin on the CPU instead of in the vertex shader"},
    {"--background", CLI_REALS(render_args, background, 3, ','), .meta = "R,G,B", .min = 0, .max = 1,
     .dflt = "0.86,0.88,0.91", .help = "the background colour, red, green and blue (the browser viewer's is 0.13,0.14,0.17)"},
    {"--no-grid", CLI_FLAG(render_args, no_grid), .help = "no ground grid: the background all round"},
    {"--terrain", CLI_STRING(render_args, terrain), .meta = "SPEC",
     .help = "stand the character on a terrain at frame 0 (the forms below)"},
    {"--beside", CLI_STRING(render_args, beside), .meta = "TARGET",
     .help = "also draw TARGET (a file or " SK_CLI_MANNEQUIN ") beside it, playing the clip retargeted onto it"},
    {"--ik", CLI_CHOICE(render_args, ik, "reach|slope"),
     .help = "an IK scene: an arm reaching for a moving target, or a walk up a slope with the feet planted"},
    {"--ik-chain", CLI_STRING(render_args, ik_chain), .meta = "ROOT:TIP",
     .help = "(--ik reach) the arm: two bones, or a longer chain solved by FABRIK",
     .dflt_text = "upperarm_r:hand_r"},
    {"--slope", CLI_REAL(render_args, slope), .meta = "DEG", .min = -89, .max = 89, .dflt = "15",
     .help = "(--ik slope) the slope's angle"},
    {"--ik-legs", CLI_STRING(render_args, ik_legs), .meta = "TL:FL,TR:FR",
     .help = "(--ik slope) the legs, thigh to foot", .dflt_text = "found from joint names"},
};
static const cli_arg render_arg_list[] = {
    {"FILE", CLI_ARG(render_args, file), .flags = CLI_REQUIRED,
     .help = CLI_FILE_HELP "; a file without a mesh (a .bvh) is drawn as bones"},
};
static const char render_camera_note[] =
    "--camera:   auto frames the animated bounds from azimuth 35, elevation 12 (front = +Z, the glTF\n"
    "            front; right = the character's right side, -X); AZ,EL in degrees. A .bvh is drawn in\n"
    "            its own units unless --scale M gives metres per unit (the ground grid is in metres).\n"
    "--ik reach: an arm reaches for a target (the red cross) moving around the character, partly out\n"
    "            of reach.\n"
    "--ik slope: the character walks up a slope with its feet planted on it (two-bone legs, hips\n"
    "            lowered to the lower foot, feet turned with the ground).\n";
static const char *const render_notes[] = {render_camera_note, cli_terrain_usage, NULL};
const cli_command cli_cmd_render = {
    .name = "render",
    .run = cmd_render,
    .summary = "draw the character off-screen to a PNG or an animated GIF",
    .about = "Draws the character off-screen (OpenGL 3.3 on an EGL surfaceless context, Mesa's "
             "software rasteriser: no display or GPU needed) to a PNG, a numbered PNG sequence or "
             "an animated GIF; skinning in the vertex shader, or on the CPU with --cpu.",
    .opts = render_opts,
    .nopts = CLI_COUNT(render_opts),
    .args = render_arg_list,
    .nargs = CLI_COUNT(render_arg_list),
    .notes = render_notes,
};
