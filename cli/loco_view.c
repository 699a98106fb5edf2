/* skelanim command-line tool: walks recorded and drawn off-screen (loco_view.h). */
#include "loco_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fprint_vec(FILE *f, sk_vec3 v) { fprintf(f, "[%.5f,%.5f,%.5f]", v.x, v.y, v.z); }

bool loco_view_overlay_frame(const loco_char *c, double t, loco_overlay_frame *out) {
    if (!c->loco || !c->group) return false;
    const char *clips[LOCO_MAX_CLIPS], *legs[SK_MOTION_GROUP_MAX_LEGS];
    for (uint32_t i = 0; i < c->nclips && i < LOCO_MAX_CLIPS; i++) clips[i] = c->label[i];
    for (uint32_t l = 0; l < c->leg_count && l < SK_MOTION_GROUP_MAX_LEGS; l++) legs[l] = loco_char_leg_name(c, l);
    return loco_overlay_gather(out, c->loco, c->group, clips, legs, t);
}

/* The first line's extras: the path, the terrain and the skeleton's parents. */
static void write_header(FILE *f, const rec_ctx *r, const sk_skeleton *s) {
    float xz[2 * SK_PATH_MAX_POINTS];
    uint32_t n = r->path_text ? sk_path_parse(r->path_text, xz, SK_PATH_MAX_POINTS, NULL) : 0;
    if (n) {
        fprintf(f, ",\"path\":[");
        for (uint32_t i = 0; i < n; i++) fprintf(f, "%s[%.5f,%.5f]", i ? "," : "", xz[2 * i], xz[2 * i + 1]);
        fprintf(f, "]");
    }
    if (r->terrain_spec) {
        fprintf(f, ",\"terrain\":\"");
        for (const char *p = r->terrain_spec; *p; p++) {
            if (*p == '"' || *p == '\\') fputc('\\', f);
            fputc((unsigned char)*p < 0x20 ? '?' : *p, f);
        }
        fprintf(f, "\"");
    }
    fprintf(f, ",\"parents\":[");
    for (uint32_t j = 0; j < s->joint_count; j++) fprintf(f, "%s%d", j ? "," : "", (int)s->parents[j]);
    fprintf(f, "]");
}

static void write_trace(FILE *f, rec_ctx *r, const loco_char *c, double t) {
    loco_feet ft;
    loco_char_feet(c, &ft);
    loco_overlay_frame ov;
    bool has_ov = loco_view_overlay_frame(c, t, &ov) && ov.leg_count == ft.legs;
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
        fprintf(f, ",\"stance\":%s", ft.f[l].stance ? "true" : "false");
        const sk_foot_event *ev = &ft.f[l].event;
        if (ev->kind != SK_FOOT_EVENT_NONE) { /* a footstep event this frame */
            fprintf(f, ",\"event\":{\"kind\":\"%s\",\"position\":", ev->kind == SK_FOOT_EVENT_DOWN ? "down" : "up");
            fprint_vec(f, ev->position);
            fprintf(f, ",\"normal\":");
            fprint_vec(f, ev->normal);
            fprintf(f, ",\"speed\":%.4f}", (double)ev->speed);
        }
        if (has_ov) {
            fputc(',', f);
            loco_overlay_write_foot(f, &ov, l);
        }
        fputc('}', f);
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
    fprintf(f, "}");
    if (has_ov) {
        fputc(',', f);
        loco_overlay_write_frame(f, &ov);
    }
    if (r->lines++ == 0) write_header(f, r, s);
    fprintf(f, "}\n");
}

void loco_record_init(rec_ctx *r, FILE *trace, double fps_out) {
    memset(r, 0, sizeof *r);
    r->trace = trace;
    r->keep_frames = fps_out > 0;
    r->fps_out = fps_out > 0 ? fps_out : 25;
    for (int q = 0; q < 3; q++) r->bmin[q] = INFINITY, r->bmax[q] = -INFINITY;
}

void loco_record_free(rec_ctx *r) {
    for (uint32_t i = 0; i < r->nframes; i++) free(r->frames[i].world), free(r->frames[i].ov);
    free(r->frames);
    r->frames = NULL;
    r->nframes = r->cap = 0;
}

bool loco_record(void *user, const loco_char *c, double t) {
    rec_ctx *r = user;
    loco_feet ft;
    loco_char_feet(c, &ft);
    if (r->trace) write_trace(r->trace, r, c, t);
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
    r->frames[r->nframes].ov = NULL;
    if (r->overlay && (r->frames[r->nframes].ov = malloc(sizeof(loco_overlay_frame))) &&
        !loco_view_overlay_frame(c, t, r->frames[r->nframes].ov)) {
        free(r->frames[r->nframes].ov);
        r->frames[r->nframes].ov = NULL;
    }
    r->nframes++;
    return true;
}

void loco_view_close(loco_view *v) {
    skr_gif_close(v->gif, NULL);
    loco_overlay_destroy(v->ov);
    skr_overlay_destroy(v->ground);
    skr_renderer_destroy(v->rn);
    skr_headless_destroy(v->hd);
    free(v->rgb);
    memset(v, 0, sizeof *v);
}

bool loco_view_open(loco_view *v, const char *gif_path, uint32_t w, uint32_t h, sk_error *err) {
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

sk_result loco_view_terrain(const cli_terrain *terrain, const float bmin[3], const float bmax[3], skr_terrain **out,
                            float fc[2], float *fr, sk_error *err) {
    fc[0] = 0.5f * (bmin[0] + bmax[0]), fc[1] = 0.5f * (bmin[2] + bmax[2]);
    *fr = 0.5f * fmaxf(bmax[0] - bmin[0], bmax[2] - bmin[2]) + 3.0f;
    if (terrain && terrain->kind == CLI_TERRAIN_MESH) return skr_terrain_create_mesh(terrain->asset, out, err);
    sk_terrain flat_t;
    sk_terrain_shape flat_s;
    const sk_terrain *tt = terrain ? &terrain->terrain : NULL;
    if (!tt) {
        flat_t = sk_terrain_flat(&flat_s, 0);
        tt = &flat_t;
    }
    skr_terrain_area area = {fc[0] - *fr, fc[1] - *fr, fc[0] + *fr, fc[1] + *fr, bmax[1] + 30.0f, bmin[1] - 60.0f, 0};
    return skr_terrain_create_heightfield(tt, &area, out, err);
}

/* The side view's ground: the terrain's profile in the plane x (the
 * character's), filled down past the picture's bottom edge, and its outline
 * (seed 004's 2D look; the terrain's surface is edge-on from the side). */
static void side_ground(loco_view *v, const skr_camera *cam, const sk_terrain *t, float x) {
    float half_h = cam->ortho, half_w = half_h * (float)v->w / (float)v->h;
    float z0 = cam->target[2] - half_w - 0.1f, z1 = cam->target[2] + half_w + 0.1f;
    float top = cam->target[1] + half_h + 1.0f, bottom = cam->target[1] - half_h - 1.0f;
    const skr_overlay_style fill = {{0.60f, 0.57f, 0.52f, 1.0f}, 0, false}, edge = {{0.30f, 0.28f, 0.25f, 1.0f}, 2.0f, false};
    uint32_t n = v->w > 16 ? v->w : 16; /* two samples per pixel column */
    float line[3 * 2 * 4097];
    uint32_t nl = 0;
    float pz = 0, py = 0;
    bool have = false;
    for (uint32_t i = 0; i <= 2 * n; i++) {
        float z = z0 + (z1 - z0) * (float)i / (float)(2 * n);
        sk_terrain_hit hit;
        if (!sk_terrain_height(t, x, z, top, top - bottom + 60.0f, &hit) || hit.point.y < bottom) {
            if (nl > 1) skr_overlay_lines(v->ground, cam, line, nl, true, &edge);
            nl = 0, have = false;
            continue;
        }
        float y = hit.point.y;
        if (have) {
            float q[12] = {x, py, pz, x, y, z, x, bottom, z, x, bottom, pz};
            skr_overlay_polygon(v->ground, cam, q, 4, &fill);
        }
        if (nl < 2 * 4097) line[3 * nl] = x, line[3 * nl + 1] = y, line[3 * nl + 2] = z, nl++;
        pz = z, py = y, have = true;
    }
    if (nl > 1) skr_overlay_lines(v->ground, cam, line, nl, true, &edge);
}

bool loco_view_cutout(const sk_asset *a) {
    uint32_t n = 0;
    for (uint32_t m = 0; m < a->mesh_count; m++)
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) {
            const sk_primitive *pr = &a->meshes[m].primitives[p];
            if (!pr->normals) return false;
            for (uint32_t v = 0; v < pr->vertex_count; v++, n++)
                if (!(fabsf(pr->normals[3 * v]) > 0.999f)) return false;
        }
    return n > 0;
}

bool loco_view_scene(loco_view *v, const loco_char *c, const cli_terrain *terrain, const frame_rec *frames,
                     uint32_t first, uint32_t last, double fps_out, const float bmin[3], const float bmax[3],
                     const char *png, sk_error *err) {
    bool ok = false;
    skr_model *model = NULL;
    skr_terrain *tmesh = NULL;
    sk_mat4 *pal = NULL;
    /* The side view draws bones (the planar rig's and seed 004's look), or the mesh of a
     * flat cut-out that faces it (@sprite: every normal along X). */
    bool bones = c->asset->mesh_count == 0 || (v->side && !loco_view_cutout(c->asset));
    if (!bones && skr_model_create(c->asset, 0, &model, err) != SK_OK) goto done;
    float fc[2], fr;
    if (loco_view_terrain(terrain, bmin, bmax, &tmesh, fc, &fr, err) != SK_OK) goto done;
    sk_terrain_shape flat_s;
    sk_terrain flat_t = sk_terrain_flat(&flat_s, 0);
    if (v->side && !v->ground && skr_overlay_create(&v->ground, err) != SK_OK) goto done;
    if (v->overlay && !v->ov) {
        if (!(v->ov = loco_overlay_create(err))) goto done;
        if (!loco_overlay_set_path(v->ov, v->path_xz, v->path_n, terrain ? &terrain->terrain : NULL)) {
            sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
            goto done;
        }
    }
    if (!(pal = malloc(sizeof(sk_mat4) * ((model ? skr_model_palette_size(model) : 0) + 1)))) {
        sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    for (uint32_t f = first; f < last; f++) {
        skr_camera cam = {0};
        float target[3] = {frames[f].center.x, frames[f].center.y + 0.85f, frames[f].center.z};
        if (v->side) { /* orthographic, from the character's left (+X) */
            cam.ortho = 1.4f;
            skr_camera_orbit(&cam, target, 90.0f, 0.0f, 4.5f, (int)v->w, (int)v->h);
        }
        else skr_camera_orbit(&cam, target, -75.0f, 8.0f, 4.0f, (int)v->w, (int)v->h);
        skr_frame_desc fd = {&cam, {0.86f, 0.88f, 0.91f}, false, 0, 0, {0, 0}};
        skr_begin_frame(v->rn, &fd);
        if (v->side && v->ground) side_ground(v, &cam, terrain ? &terrain->terrain : &flat_t, frames[f].center.x);
        else skr_draw_terrain(v->rn, tmesh, fc, fr, fd.background);
        if (bones) {
            const float ink[3] = {0.1f, 0.12f, 0.2f};
            skr_draw_skeleton(v->rn, c->asset->skeleton, frames[f].world, ink);
        } else {
            skr_model_palette(model, frames[f].world, pal);
            skr_draw_desc dd = {model, 1, pal, NULL, NULL};
            skr_draw_model(v->rn, &dd);
        }
        if (v->ov && frames[f].ov) {
            loco_overlay_trail_clear(v->ov);
            for (uint32_t k = 0; k <= f; k++) loco_overlay_trail_add(v->ov, frames[k].center);
            loco_overlay_draw(v->ov, &cam, frames[f].ov, loco_overlay_all, (int)v->w, (int)v->h);
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
