/* skelanim render: the same shaders as the viewer on an off-screen context
 * (EGL surfaceless, Mesa's software rasteriser: no display or GPU needed).
 * GPU skinning in the vertex shader; --cpu skins on the CPU instead. */
#include "cli.h"
#include "skr.h"
#include "ik_scene.h"
#include "terrain_spec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *e) {
    size_t n = strlen(s), m = strlen(e);
    return n >= m && strcmp(s + n - m, e) == 0;
}

static void usage(void) {
    fprintf(stderr,
            "usage: skelanim render FILE [--clip NAME|INDEX|none] [--time T | --frames N --fps F]\n"
            "                       [--size WxH] [--camera auto|front|back|left|right|top|AZ,EL] [--scale M]\n"
            "                       [--azimuth DEG] [--elevation DEG] [--cpu] [--terrain SPEC]\n"
            "                       [--ik reach [--ik-chain ROOT:TIP] | --ik slope [--slope DEG] [--ik-legs TL:FL,TR:FR]]\n"
            "                       --out FILE.png|FILE.gif   (--frames N with FILE.png: FILE-000.png ...)\n"
            "  a file without a mesh (a .bvh motion capture) is drawn as bones, in the file's units unless\n"
            "            --scale M gives metres per file unit (the ground grid is in metres: 0.0564444 for CMU files)\n"
            "  --camera: auto frames the animated bounds from azimuth 35, elevation 12 (front = +Z, the glTF\n"
            "            front; right = the character's right side, -X); AZ,EL in degrees\n"
            "  --ik reach: an arm (default upperarm_r:hand_r, two-bone; longer chains use FABRIK) reaches\n"
            "            for a target (the red cross) moving around the character, partly out of reach\n"
            "  --ik slope: the character walks up a slope (default 15 degrees) with its feet planted on it\n"
            "            (two-bone legs, hips lowered to the lower foot, feet turned with the ground)\n"
            "%s"
            "            with --terrain the camera looks from azimuth -110 (behind the character's right, facing\n"
            "            the risers) and elevation 20 unless told\n",
            cli_terrain_usage);
}

int cmd_render(int argc, char **argv) {
    const char *file = NULL, *clip_spec = NULL, *out = NULL, *ik_mode = NULL, *ik_chain = NULL, *ik_legs = NULL;
    const char *camera = NULL, *terrain_spec = NULL;
    double t0 = 0.0, fps = 15.0, az = 35.0, el = 12.0, slope_deg = 15.0, scale = 0.0;
    bool az_set = false, el_set = false;
    uint32_t frames = 0, w = 480, h = 480;
    bool cpu = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool needs = strcmp(a, "--cpu") != 0 && a[0] == '-' && a[1];
        if (needs && !v) {
            fprintf(stderr, "skelanim: %s needs a value\n", a);
            return 1;
        }
        if (!strcmp(a, "--cpu")) cpu = true;
        else if (!strcmp(a, "--clip")) clip_spec = argv[++i];
        else if (!strcmp(a, "--out")) out = argv[++i];
        else if (!strcmp(a, "--time")) { if (!cli_parse_real(a, argv[++i], -CLI_TIME_MAX, CLI_TIME_MAX, &t0)) return 1; }
        else if (!strcmp(a, "--scale")) { if (!cli_parse_real(a, argv[++i], CLI_SCALE_MIN, CLI_SCALE_MAX, &scale)) return 1; }
        else if (!strcmp(a, "--fps")) { if (!cli_parse_real(a, argv[++i], 1e-3, 100.0, &fps)) return 1; }
        else if (!strcmp(a, "--azimuth")) { if (!cli_parse_real(a, argv[++i], -3600.0, 3600.0, &az)) return 1; az_set = true; }
        else if (!strcmp(a, "--camera")) camera = argv[++i];
        else if (!strcmp(a, "--terrain")) terrain_spec = argv[++i];
        else if (!strcmp(a, "--ik")) ik_mode = argv[++i];
        else if (!strcmp(a, "--ik-chain")) ik_chain = argv[++i];
        else if (!strcmp(a, "--ik-legs")) ik_legs = argv[++i];
        else if (!strcmp(a, "--slope")) { if (!cli_parse_real(a, argv[++i], -89.0, 89.0, &slope_deg)) return 1; }
        else if (!strcmp(a, "--elevation")) { if (!cli_parse_real(a, argv[++i], -90.0, 90.0, &el)) return 1; el_set = true; }
        else if (!strcmp(a, "--frames")) { if (!cli_parse_uint(a, argv[++i], 0, 2000, &frames)) return 1; }
        else if (!strcmp(a, "--size")) {
            uint32_t wh[2];
            if (!cli_parse_u32s("--size", argv[++i], 'x', 2, 16, 4096, wh)) return 1;
            w = (int)wh[0], h = (int)wh[1];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "skelanim: render: unknown option %s\n", a);
            usage();
            return 1;
        } else if (!file) file = a;
        else {
            fprintf(stderr, "skelanim: render: unexpected argument %s\n", a);
            return 1;
        }
    }
    if (!file || !out) {
        usage();
        return 1;
    }
    skr_ik_mode mode = 0;
    if (ik_mode) {
        if (!strcmp(ik_mode, "reach")) mode = SKR_IK_REACH;
        else if (!strcmp(ik_mode, "slope")) mode = SKR_IK_SLOPE;
        else {
            fprintf(stderr, "skelanim: --ik %s: expected reach or slope\n", ik_mode);
            return 1;
        }
        if (!az_set && !camera) az = mode == SKR_IK_REACH ? -50.0 : 65.0; /* the reaching arm's side; the slope's side */
        if (!el_set && !camera && mode == SKR_IK_SLOPE) el = 8.0;
    }
    if ((ik_chain && mode != SKR_IK_REACH) || (ik_legs && mode != SKR_IK_SLOPE)) {
        fprintf(stderr, "skelanim: --ik-chain goes with --ik reach, --ik-legs with --ik slope\n");
        return 1;
    }
    if (terrain_spec && mode) {
        fprintf(stderr, "skelanim: --terrain does not go with --ik (the IK scenes bring their own ground)\n");
        return 1;
    }
    if (terrain_spec && !camera) { /* from the side: the terrain ahead (+Z) does not hide the feet */
        if (!az_set) az = -110.0;
        if (!el_set) el = 20.0;
    }
    char chain_root[256] = "", chain_tip[256] = "";
    if (ik_chain && sscanf(ik_chain, "%255[^:]:%255s", chain_root, chain_tip) != 2) {
        fprintf(stderr, "skelanim: --ik-chain %s: expected ROOT:TIP\n", ik_chain);
        return 1;
    }
    if (camera && strcmp(camera, "auto")) {
        static const struct { const char *name; double az, el; } views[] = {
            {"front", 0, 10}, {"back", 180, 10}, {"left", 90, 10}, {"right", -90, 10}, {"top", 0, 89}};
        bool found = false;
        for (size_t k = 0; k < sizeof views / sizeof views[0]; k++)
            if (!strcmp(camera, views[k].name)) az = views[k].az, el = views[k].el, found = true;
        double ae[2];
        if (!found) {
            char why[160];
            if (!cli_numbers(camera, ',', 2, CLI_NUM_REAL, -3600.0, 3600.0, ae, why, sizeof why)) {
                fprintf(stderr, "skelanim: --camera: '%s' %s (expected auto, front, back, left, right, top or AZ,EL)\n",
                        camera, why);
                return 1;
            }
            az = ae[0], el = ae[1];
        }
        if (!(fabs(el) < 90.0) || !isfinite(az)) {
            fprintf(stderr, "skelanim: --camera %s: elevation must be within (-90, 90) degrees\n", camera);
            return 1;
        }
    }
    bool gif = ends_with(out, ".gif");
    if (!gif && !ends_with(out, ".png")) {
        fprintf(stderr, "skelanim: --out %s: expected a .png or .gif file\n", out);
        return 1;
    }
    if (gif && frames == 0) frames = 30;
    if (frames == 0) frames = 1;

    int rc = 1;
    sk_asset *asset = NULL;
    skr_headless *hd = NULL;
    skr_renderer *rn = NULL;
    skr_model *model = NULL;
    skr_gif *g = NULL;
    sk_transform *local = NULL;
    sk_mat4 *world = NULL, *pal = NULL, *bone_worlds = NULL;
    float *weights = NULL, *cpu_v = NULL;
    unsigned char *rgb = NULL;
    sk_vec3 *targets = NULL;
    double ik_worst = 0;
    uint32_t ik_unreached = 0;
    sk_error err = {0};
    cli_terrain *terrain = NULL;
    skr_terrain *tmesh = NULL;
    if (terrain_spec && cli_terrain_parse(terrain_spec, &terrain, &err) != SK_OK) {
        fprintf(stderr, "skelanim: %s\n", err.message);
        return 1;
    }
    if (!cli_load_scaled(file, scale, &asset)) {
        cli_terrain_destroy(terrain);
        return 1;
    }
    const sk_skeleton *s = asset->skeleton;
    int32_t clip = asset->clip_count ? 0 : -1;
    if (mode && !clip_spec) { /* idle under the reach, walk on the slope, when the file has them */
        int32_t c = sk_asset_find_clip(asset, mode == SKR_IK_REACH ? "idle" : "walk");
        if (c >= 0) clip = c;
    }
    if (clip_spec && (clip = cli_find_clip(asset, clip_spec)) == -2) goto done;
    skr_ik_scene ik;
    if (mode && skr_ik_scene_init(&ik, asset, mode, clip, ik_chain ? chain_root : NULL, ik_chain ? chain_tip : NULL,
                                  ik_legs, (float)slope_deg, &err) != SK_OK)
        goto fail;
    if (!(hd = skr_headless_create((int)w, (int)h, 4, &err))) goto fail;
    skr_headless_bind(hd);
    if (skr_renderer_create(&rn, &err) != SK_OK) goto fail;
    /* A file without meshes (a .bvh, or bare nodes) is drawn as bones: no model. */
    bool bones = asset->mesh_count == 0 && s->joint_count > 0;
    if (!bones && skr_model_create(asset, 0, &model, &err) != SK_OK) goto fail;
    uint32_t n = s->joint_count, np = model ? skr_model_palette_size(model) : 0;
    uint32_t nv = model ? skr_model_vertex_count(model) : 0;
    local = calloc(n ? n : 1, sizeof *local);
    world = calloc(n ? n : 1, sizeof *world);
    pal = calloc((size_t)frames * (np ? np : 1), sizeof *pal);
    weights = calloc((size_t)frames * (s->weight_total + 1), sizeof *weights);
    cpu_v = cpu ? calloc((size_t)nv * 6 + 1, sizeof *cpu_v) : NULL;
    rgb = malloc((size_t)w * h * 3);
    targets = calloc(frames, sizeof *targets);
    if (!local || !world || !pal || !weights || !rgb || !targets || (cpu && !cpu_v)) goto done;
    if (bones && !(bone_worlds = calloc((size_t)frames * n, sizeof *bone_worlds))) goto done;
    /* Pose every frame first: the camera frames the animated bounds of all of them. */
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    float root0[3] = {0, 0, 0};
    for (uint32_t f = 0; f < frames; f++) {
        double t = t0 + f / fps;
        float *wf = weights + (size_t)f * (s->weight_total + 1);
        if (mode) {
            skr_ik_frame info;
            if (skr_ik_scene_pose(&ik, t, f, frames, local, world, wf, NULL, NULL, &info, &err) != SK_OK) goto fail;
            targets[f] = info.target;
            if (mode == SKR_IK_REACH) {
                if (info.result.reachable) ik_worst = fmax(ik_worst, info.result.error);
                else ik_unreached++;
            } else
                for (int k = 0; k < 2; k++) ik_worst = fmax(ik_worst, info.leg_result[k].error);
        } else {
            if (clip >= 0) sk_clip_sample(asset->clips[clip], s, t, SK_LOOP_REPEAT, SK_POSE_OF(s, local, wf), NULL);
            else sk_pose_rest(s, SK_POSE_OF(s, local, wf), NULL);
            sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
        }
        if (f == 0 && n) memcpy(root0, &world[0].m[12], sizeof root0);
        if (model) skr_model_palette(model, world, pal + (size_t)f * np);
        if (mode == SKR_IK_REACH)
            for (int k = 0; k < 3; k++) { /* keep the target path in the picture */
                float v = k == 0 ? targets[f].x : k == 1 ? targets[f].y : targets[f].z;
                bmin[k] = fminf(bmin[k], v), bmax[k] = fmaxf(bmax[k], v);
            }
        if (model) skr_model_bounds(model, pal + (size_t)f * np, wf, bmin, bmax);
        if (bones) {
            memcpy(bone_worlds + (size_t)f * n, world, (size_t)n * sizeof *world);
            for (uint32_t j = 0; j < n; j++)
                for (int k = 0; k < 3; k++)
                    bmin[k] = fminf(bmin[k], world[j].m[12 + k]), bmax[k] = fmaxf(bmax[k], world[j].m[12 + k]);
        }
    }
    if (!(bmin[0] <= bmax[0])) {
        fprintf(stderr, "skelanim: %s: nothing to draw (no triangle meshes and no joints)\n", file);
        goto done;
    }
    float ground = mode == SKR_IK_SLOPE ? 0.0f : bmin[1];
    if (mode == SKR_IK_REACH) { /* the target may go below the feet: the ground stays under them */
        float feet = INFINITY, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t f = 0; f < frames && model; f++) skr_model_bounds(model, pal + (size_t)f * np, weights + (size_t)f * (s->weight_total + 1), lo, hi);
        feet = lo[1];
        if (model) ground = feet;
    }
    float fade_center[2] = {0, 0}, fade_radius = 0;
    if (terrain) {
        /* The character stands on the terrain at frame 0: its lowest point over the frames (where the
         * grid would be) goes to the ground under its root; every frame moves by the same offset. */
        float top = fmaxf(bmax[1], root0[1]) + 50.0f, dy = 0;
        sk_terrain_hit hit;
        if (sk_terrain_height(&terrain->terrain, root0[0], root0[2], top, 1e5f, &hit)) dy = hit.point.y - bmin[1];
        else
            fprintf(stderr, "skelanim: note: the terrain has no ground under the root at x %.3g, z %.3g: the character "
                            "keeps its height\n", (double)root0[0], (double)root0[2]);
        for (uint32_t k = 0; k < (size_t)frames * np; k++) pal[k].m[13] += dy;
        bmin[1] += dy, bmax[1] += dy;
        ground = bmin[1];
        /* The framed box takes in the terrain within 1.5 m of the character. */
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
        /* Drawn over a square 3 m wider than the framed box, fading out towards its edge. */
        fade_center[0] = 0.5f * (bmin[0] + bmax[0]), fade_center[1] = 0.5f * (bmin[2] + bmax[2]);
        fade_radius = 0.5f * fmaxf(bmax[0] - bmin[0], bmax[2] - bmin[2]) + 3.0f;
        if (terrain->kind == CLI_TERRAIN_MESH) {
            if (skr_terrain_create_mesh(terrain->asset, &tmesh, &err) != SK_OK) goto fail;
        } else {
            /* the rays start above the highest ground of the square: ramps and stairs climb on */
            double climb = terrain->kind == CLI_TERRAIN_RAMP     ? tan(fmin(fabs(terrain->params[0]), 89.0) * M_PI / 180.0)
                           : terrain->kind == CLI_TERRAIN_STAIRS ? fabs(terrain->params[0]) / terrain->params[1]
                                                                 : 0.0;
            float reach = (float)fmin(climb * 3.0 * fade_radius, 1e5);
            skr_terrain_area area = {fade_center[0] - fade_radius, fade_center[1] - fade_radius,
                                     fade_center[0] + fade_radius, fade_center[1] + fade_radius,
                                     bmax[1] + 20.0f + reach, bmin[1] - 100.0f - reach, 0};
            if (skr_terrain_create_heightfield(&terrain->terrain, &area, &tmesh, &err) != SK_OK) goto fail;
        }
        double up = fabs((double)dy) < 5e-4 ? 0.0 : (double)dy; /* no "-0.000" */
        printf("terrain: %s; the character %s %.3f m to stand on it (the ground under its root at x %.3g, z %.3g)\n",
               terrain->description, up < 0.0 ? "moved down" : "moved up", fabs(up), (double)root0[0],
               (double)root0[2]);
    }
    skr_camera cam = {0}; /* fov_y 0: the default field of view */
    skr_camera_frame(&cam, bmin, bmax, (float)az, (float)el, (int)w, (int)h);
    if (gif && skr_gif_open(out, (int)w, (int)h, &g, &err) != SK_OK) goto fail;
    for (uint32_t f = 0; f < frames; f++) {
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, !terrain, ground, 0, {0, 0}};
        if (mode == SKR_IK_SLOPE) { /* a patch of slope around the walk: a whole tilted plane would fill the sky */
            fd.ground_slope[1] = tanf(ik.slope);
            fd.grid_extent = 0.5f * fmaxf(bmax[0] - bmin[0], bmax[2] - bmin[2]) + 1.5f;
        }
        skr_begin_frame(rn, &fd);
        if (tmesh) skr_draw_terrain(rn, tmesh, fade_center, fade_radius, fd.background);
        skr_draw_desc dd = {model, 1, pal + (size_t)f * np, NULL, NULL};
        if (cpu && !bones) {
            if (skr_model_skin_cpu(model, pal + (size_t)f * np, weights + (size_t)f * (s->weight_total + 1), SK_SKIN_LBS,
                                   SK_SIMD_AUTO, cpu_v, &err) != SK_OK)
                goto fail;
            dd.palettes = NULL;
            dd.cpu_vertices = cpu_v;
        }
        if (bones) {
            const float bone_rgb[3] = {0.15f, 0.25f, 0.55f};
            skr_draw_skeleton(rn, s, bone_worlds + (size_t)f * n, bone_rgb);
        } else
            skr_draw_model(rn, &dd);
        if (mode == SKR_IK_REACH) {
            const float red[3] = {0.9f, 0.1f, 0.1f};
            const float p[3] = {targets[f].x, targets[f].y, targets[f].z};
            skr_draw_target(rn, p, 0.08f * ik.arm_length, red);
        }
        skr_headless_read(hd, rgb);
        if (gif) {
            if (skr_gif_add(g, rgb, (int)lrint(100.0 / fps), &err) != SK_OK) goto fail;
        } else if (frames == 1) {
            if (skr_write_image(out, rgb, (int)w, (int)h, &err) != SK_OK) goto fail;
        } else { /* PNG frames: NAME.png -> NAME-000.png, NAME-001.png, ... */
            char path[4096];
            snprintf(path, sizeof path, "%.*s-%03u.png", (int)(strlen(out) - 4), out, f);
            if (skr_write_image(path, rgb, (int)w, (int)h, &err) != SK_OK) goto fail;
        }
    }
    if (gif) {
        skr_gif *gg = g;
        g = NULL;
        if (skr_gif_close(gg, &err) != SK_OK) goto fail;
    }
    if (!gif && frames > 1)
        printf("wrote %.*s-000.png ... -%03u.png (%ux%u, %u frames)\n", (int)(strlen(out) - 4), out, frames - 1, w, h,
               frames);
    else printf("wrote %s (%ux%u, %u frame%s)\n", out, w, h, frames, frames == 1 ? "" : "s");
    if (mode == SKR_IK_REACH)
        printf("IK reach: %u of %u frames reachable, largest hand-to-target distance there %.3g m; %u beyond reach "
               "(arm straight, pointing at the target)\n",
               frames - ik_unreached, frames, ik_worst, ik_unreached);
    else if (mode == SKR_IK_SLOPE)
        printf("IK slope: %.1f degrees, largest ankle-to-target distance %.3g m over %u frames\n", slope_deg, ik_worst,
               frames);
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: render: %s\n", err.message[0] ? err.message : "failed");
done:
    skr_gif_close(g, NULL);
    skr_terrain_destroy(tmesh);
    cli_terrain_destroy(terrain);
    skr_model_destroy(model);
    skr_renderer_destroy(rn);
    skr_headless_destroy(hd);
    free(bone_worlds);
    free(local), free(world), free(pal), free(weights), free(cpu_v), free(rgb), free(targets);
    sk_asset_destroy(asset);
    return rc;
}
