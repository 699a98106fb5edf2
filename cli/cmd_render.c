/* skelanim render: the same shaders as the viewer on an off-screen context
 * (EGL surfaceless, Mesa's software rasteriser: no display or GPU needed).
 * GPU skinning in the vertex shader; --cpu skins on the CPU instead. */
#include "cli.h"
#include "skr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *e) {
    size_t n = strlen(s), m = strlen(e);
    return n >= m && strcmp(s + n - m, e) == 0;
}

static void usage(void) {
    fprintf(stderr, "usage: skelanim render FILE [--clip NAME|INDEX|none] [--time T | --frames N --fps F]\n"
                    "                       [--size WxH] [--azimuth DEG] [--elevation DEG] [--cpu] --out FILE.png|FILE.gif\n");
}

int cmd_render(int argc, char **argv) {
    const char *file = NULL, *clip_spec = NULL, *out = NULL;
    double t0 = 0.0, fps = 15.0, az = 35.0, el = 12.0;
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
        else if (!strcmp(a, "--time")) { if (!cli_parse_double(a, argv[++i], &t0)) return 1; }
        else if (!strcmp(a, "--fps")) { if (!cli_parse_double(a, argv[++i], &fps) || !(fps > 0 && fps <= 100)) { fprintf(stderr, "skelanim: --fps must be in (0, 100]\n"); return 1; } }
        else if (!strcmp(a, "--azimuth")) { if (!cli_parse_double(a, argv[++i], &az)) return 1; }
        else if (!strcmp(a, "--elevation")) { if (!cli_parse_double(a, argv[++i], &el)) return 1; }
        else if (!strcmp(a, "--frames")) { if (!cli_parse_u32(a, argv[++i], &frames) || frames > 2000) { fprintf(stderr, "skelanim: --frames must be at most 2000\n"); return 1; } }
        else if (!strcmp(a, "--size")) {
            unsigned ww, hh;
            char tail;
            if (sscanf(argv[++i], "%ux%u%c", &ww, &hh, &tail) != 2 || ww < 16 || hh < 16 || ww > 4096 || hh > 4096) {
                fprintf(stderr, "skelanim: --size %s: expected WxH between 16 and 4096\n", argv[i]);
                return 1;
            }
            w = ww, h = hh;
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
    bool gif = ends_with(out, ".gif");
    if (!gif && !ends_with(out, ".png")) {
        fprintf(stderr, "skelanim: --out %s: expected a .png or .gif file\n", out);
        return 1;
    }
    if (gif && frames == 0) frames = 30;
    if (!gif && frames > 1) {
        fprintf(stderr, "skelanim: --frames needs a .gif output\n");
        return 1;
    }
    if (frames == 0) frames = 1;

    int rc = 1;
    sk_asset *asset = NULL;
    skr_headless *hd = NULL;
    skr_renderer *rn = NULL;
    skr_model *model = NULL;
    skr_gif *g = NULL;
    sk_transform *local = NULL;
    sk_mat4 *world = NULL, *pal = NULL;
    float *weights = NULL, *cpu_v = NULL;
    unsigned char *rgb = NULL;
    sk_error err = {0};
    if (!cli_load(file, &asset)) return 1;
    const sk_skeleton *s = asset->skeleton;
    int32_t clip = asset->clip_count ? 0 : -1;
    if (clip_spec && (clip = cli_find_clip(asset, clip_spec)) == -2) goto done;
    if (!(hd = skr_headless_create((int)w, (int)h, 4, &err))) goto fail;
    skr_headless_bind(hd);
    if (skr_renderer_create(&rn, &err) != SK_OK) goto fail;
    if (skr_model_create(asset, strcmp(file, SK_CLI_MANNEQUIN) ? file : NULL, &model, &err) != SK_OK) goto fail;
    uint32_t n = s->joint_count, np = skr_model_palette_size(model), nv = skr_model_vertex_count(model);
    local = calloc(n ? n : 1, sizeof *local);
    world = calloc(n ? n : 1, sizeof *world);
    pal = calloc((size_t)frames * (np ? np : 1), sizeof *pal);
    weights = calloc((size_t)frames * (s->weight_total + 1), sizeof *weights);
    cpu_v = cpu ? calloc((size_t)nv * 6 + 1, sizeof *cpu_v) : NULL;
    rgb = malloc((size_t)w * h * 3);
    if (!local || !world || !pal || !weights || !rgb || (cpu && !cpu_v)) goto done;
    /* Pose every frame first: the camera frames the animated bounds of all of them. */
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t f = 0; f < frames; f++) {
        double t = t0 + f / fps;
        float *wf = weights + (size_t)f * (s->weight_total + 1);
        if (clip >= 0) sk_clip_sample(asset->clips[clip], s, t, SK_LOOP_REPEAT, local, wf);
        else sk_pose_rest(s, local, wf);
        sk_local_to_model(s, local, NULL, world);
        skr_model_palette(model, world, pal + (size_t)f * np);
        skr_model_bounds(model, pal + (size_t)f * np, wf, bmin, bmax);
    }
    if (!(bmin[0] <= bmax[0])) {
        fprintf(stderr, "skelanim: %s: nothing to draw (no triangle meshes)\n", file);
        goto done;
    }
    float ground = bmin[1];
    skr_camera cam = {0}; /* fov_y 0: the default field of view */
    skr_camera_frame(&cam, bmin, bmax, (float)az, (float)el, (int)w, (int)h);
    if (gif && skr_gif_open(out, (int)w, (int)h, &g, &err) != SK_OK) goto fail;
    for (uint32_t f = 0; f < frames; f++) {
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, true, ground, 0};
        skr_begin_frame(rn, &fd);
        skr_draw_desc dd = {model, 1, pal + (size_t)f * np, NULL, NULL};
        if (cpu) {
            if (skr_model_skin_cpu(model, pal + (size_t)f * np, weights + (size_t)f * (s->weight_total + 1), SK_SKIN_LBS,
                                   SK_SIMD_AUTO, cpu_v, &err) != SK_OK)
                goto fail;
            dd.palettes = NULL;
            dd.cpu_vertices = cpu_v;
        }
        skr_draw_model(rn, &dd);
        skr_headless_read(hd, rgb);
        if (gif) {
            if (skr_gif_add(g, rgb, (int)lrint(100.0 / fps), &err) != SK_OK) goto fail;
        } else if (skr_write_image(out, rgb, (int)w, (int)h, &err) != SK_OK) goto fail;
    }
    if (gif) {
        skr_gif *gg = g;
        g = NULL;
        if (skr_gif_close(gg, &err) != SK_OK) goto fail;
    }
    printf("wrote %s (%ux%u, %u frame%s)\n", out, w, h, frames, frames == 1 ? "" : "s");
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "skelanim: render: %s\n", err.message[0] ? err.message : "failed");
done:
    skr_gif_close(g, NULL);
    skr_model_destroy(model);
    skr_renderer_destroy(rn);
    skr_headless_destroy(hd);
    free(local), free(world), free(pal), free(weights), free(cpu_v), free(rgb);
    sk_asset_destroy(asset);
    return rc;
}
