/* The browser viewer's C side: loading (the mannequin, or a .glb/.gltf, .bvh
 * or .skc from memory), clip playback and blending, palettes, CPU skinning,
 * the skeleton overlay (web.h). Exported to JavaScript as web_*. */
#include "web.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void clear_asset(web_app *app) {
    web_walk_destroy(app->walk);
    app->walk = NULL;
    for (uint32_t i = 0; i < app->draw_count; i++) {
        web_draw *d = &app->draws[i];
        free(d->positions);
        free(d->normals);
        free(d->joints);
        free(d->weights);
        free(d->indices);
        free(d->cpu_positions);
        free(d->cpu_normals);
        sk_skinned_mesh_destroy(d->cpu);
    }
    free(app->draws);
    free(app->palette);
    free(app->model);
    free(app->lines);
    sk_pose_free(&app->pose_a, NULL);
    sk_pose_free(&app->pose_b, NULL);
    sk_asset_destroy(app->asset);
    char keep[sizeof app->error];
    memcpy(keep, app->error, sizeof keep);
    memset(app, 0, sizeof *app);
    memcpy(app->error, keep, sizeof keep);
    app->clip_a = app->clip_b = -1;
}

/* The four strongest influences of vertex v, renormalised. */
static void four_influences(const sk_primitive *p, uint32_t v, uint16_t *j4, float *w4) {
    uint32_t n = p->influence_count;
    float w[8] = {0};
    uint16_t j[8] = {0};
    for (uint32_t k = 0; k < n && k < 8; k++) {
        j[k] = p->joints[(size_t)v * n + k];
        float x = p->weights[(size_t)v * n + k];
        w[k] = isfinite(x) && x > 0 ? x : 0;
    }
    for (uint32_t k = 0; k < 4; k++) { /* selection of the largest remaining */
        uint32_t best = k;
        for (uint32_t m = k + 1; m < 8; m++)
            if (w[m] > w[best]) best = m;
        float tw = w[k];
        uint16_t tj = j[k];
        w[k] = w[best], j[k] = j[best];
        w[best] = tw, j[best] = tj;
    }
    float s = w[0] + w[1] + w[2] + w[3];
    for (uint32_t k = 0; k < 4; k++) {
        j4[k] = j[k];
        w4[k] = s > 0 ? w[k] / s : (k == 0 ? 1.0f : 0.0f);
    }
}

static bool add_draw(web_app *app, const sk_primitive *p, uint32_t joint, int32_t skin) {
    if (p->mode != 4 || p->vertex_count == 0 || p->missing_data || !p->positions) return true;
    web_draw *d = &app->draws[app->draw_count];
    memset(d, 0, sizeof *d);
    d->prim = p;
    d->joint = joint;
    bool skinned = skin >= 0 && p->influence_count > 0 && p->joints && p->weights;
    d->skin = skinned ? skin : -1;
    d->vertex_count = p->vertex_count;
    d->index_count = p->indices ? p->index_count : p->vertex_count;
    size_t n = p->vertex_count;
    d->positions = malloc(n * 3 * sizeof(float));
    d->normals = calloc(n * 3, sizeof(float));
    d->joints = calloc(n * 4, sizeof(uint16_t));
    d->weights = calloc(n * 4, sizeof(float));
    d->indices = malloc((size_t)d->index_count * sizeof(uint32_t));
    if (!d->positions || !d->normals || !d->joints || !d->weights || !d->indices) return false;
    memcpy(d->positions, p->positions, n * 3 * sizeof(float));
    if (p->normals) memcpy(d->normals, p->normals, n * 3 * sizeof(float));
    for (uint32_t i = 0; i < d->index_count; i++) d->indices[i] = p->indices ? p->indices[i] : i;
    for (uint32_t v = 0; v < n; v++) {
        if (skinned) four_influences(p, v, &d->joints[v * 4], &d->weights[v * 4]);
        else d->weights[v * 4] = 1.0f;
    }
    memcpy(d->color, p->base_color, sizeof d->color);
    d->palette_offset = app->palette_total;
    d->palette_count = skinned ? app->asset->skins[skin].joint_count : 1;
    app->palette_total += d->palette_count;
    if (skinned) {
        sk_error err = {0};
        if (sk_skinned_mesh_create(p, NULL, &d->cpu, &err) == SK_OK) {
            d->cpu_positions = malloc(n * 3 * sizeof(float));
            d->cpu_normals = p->normals ? malloc(n * 3 * sizeof(float)) : NULL;
            if (!d->cpu_positions) return false;
        }
    }
    app->draw_count++;
    return true;
}

static void grow(float *b, const float *p) {
    for (int k = 0; k < 3; k++) {
        if (p[k] < b[k]) b[k] = p[k];
        if (p[k] > b[3 + k]) b[3 + k] = p[k];
    }
}

/* Bounds of the rest pose: joints and (every few) vertices as placed. */
static void rest_bounds(web_app *app) {
    float *b = app->bounds;
    b[0] = b[1] = b[2] = INFINITY;
    b[3] = b[4] = b[5] = -INFINITY;
    const sk_skeleton *s = app->asset->skeleton;
    for (uint32_t j = 0; j < s->joint_count; j++) grow(b, &app->model[j].m[12]);
    for (uint32_t i = 0; i < app->draw_count; i++) {
        const web_draw *d = &app->draws[i];
        const sk_mat4 *pal = (const sk_mat4 *)(app->palette + (size_t)d->palette_offset * 16);
        uint32_t step = d->vertex_count / 4096 + 1;
        for (uint32_t v = 0; v < d->vertex_count; v += step) {
            sk_vec3 o;
            bool ok = d->skin >= 0 ? sk_primitive_vertex_position(d->prim, v, NULL, pal, d->palette_count, NULL, &o)
                                   : sk_primitive_vertex_position(d->prim, v, NULL, NULL, 0, pal, &o);
            float q[3] = {o.x, o.y, o.z};
            if (ok && isfinite(o.x) && isfinite(o.y) && isfinite(o.z)) grow(b, q);
        }
    }
    if (!(b[0] <= b[3])) memset(b, 0, 6 * sizeof(float));
    for (int k = 0; k < 3; k++) app->focus[k] = 0.5f * (b[k] + b[3 + k]);
}

static bool setup(web_app *app) {
    const sk_asset *a = app->asset;
    const sk_skeleton *s = a->skeleton;
    sk_error err = {0};
    if (!s || s->joint_count == 0) {
        snprintf(app->error, sizeof app->error, "the file has no nodes");
        return false;
    }
    if (sk_pose_alloc(s, NULL, &app->pose_a, &err) != SK_OK || sk_pose_alloc(s, NULL, &app->pose_b, &err) != SK_OK)
        goto fail;
    uint32_t uses = 0;
    for (uint32_t j = 0; j < s->joint_count; j++)
        if (a->joint_mesh[j] >= 0) uses += a->meshes[a->joint_mesh[j]].primitive_count;
    app->model = calloc(s->joint_count, sizeof *app->model);
    app->draws = calloc(uses + 1, sizeof *app->draws);
    app->lines = calloc((size_t)s->joint_count * 6, sizeof(float));
    if (!app->model || !app->draws || !app->lines) goto oom;
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t m = a->joint_mesh[j];
        if (m < 0) continue;
        for (uint32_t k = 0; k < a->meshes[m].primitive_count; k++)
            if (!add_draw(app, &a->meshes[m].primitives[k], j, a->joint_skin[j])) goto oom;
    }
    app->palette = calloc((size_t)app->palette_total + 1, 16 * sizeof(float));
    if (!app->palette) goto oom;
    app->clip_a = a->clip_count ? 0 : -1;
    app->clip_b = -1;
    sk_player_init(&app->player_a, &(sk_player_desc){.duration = app->clip_a >= 0 ? sk_clip_duration(a->clips[0]) : 0});
    if (sk_pose_rest(s, &app->pose_a, &err) != SK_OK ||
        sk_local_to_model(s, &app->pose_a, NULL, app->model, s->joint_count, &err) != SK_OK)
        goto fail;
    web_pose_finish(app);
    rest_bounds(app);
    return true;
oom:
    snprintf(app->error, sizeof app->error, "out of memory");
    return false;
fail:
    snprintf(app->error, sizeof app->error, "%s", err.message);
    return false;
}

/* ---- Exports ------------------------------------------------------------- */

WEB_EXPORT web_app *web_app_create(void) {
    web_app *app = calloc(1, sizeof *app);
    if (app) app->clip_a = app->clip_b = -1;
    return app;
}

WEB_EXPORT void web_app_destroy(web_app *app) {
    if (!app) return;
    clear_asset(app);
    free(app);
}

WEB_EXPORT const char *web_error(const web_app *app) { return app ? app->error : "no viewer"; }

/* Loads data (size bytes; NULL: the built-in mannequin), by its content: a
 * .glb ("glTF" magic), a .skc ("SKC" magic), a .bvh ("HIERARCHY"), else
 * .gltf JSON (data: URIs only). 1 on success; 0 with web_error set, the
 * viewer then empty. name starts the messages. */
WEB_EXPORT int web_load(web_app *app, const void *data, uint32_t size, const char *name) {
    if (!app) return 0;
    clear_asset(app);
    app->error[0] = 0;
    sk_error err = {0};
    sk_result r;
    const char *b = data;
    if (!data) {
        r = sk_mannequin_create(NULL, NULL, &app->asset, &err);
        app->mannequin = true;
    } else if (size >= 4 && !memcmp(b, "glTF", 4)) {
        r = sk_gltf_load_memory(data, size, NULL, NULL, &app->asset, &err);
    } else if (size >= 3 && !memcmp(b, "SKC", 3)) {
        r = sk_skc_load_memory(data, size, false, NULL, &app->asset, NULL, &err);
    } else {
        uint32_t i = 0;
        while (i < size && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
        if (size - i >= 9 && !memcmp(b + i, "HIERARCHY", 9)) {
            r = sk_bvh_load_memory(data, size, name, NULL, &app->asset, &err);
        } else {
            r = sk_gltf_load_memory(data, size, NULL, NULL, &app->asset, &err);
        }
    }
    if (r != SK_OK) {
        snprintf(app->error, sizeof app->error, "%s: %s", name ? name : "file", err.message);
        clear_asset(app);
        return 0;
    }
    if (!setup(app)) {
        char msg[sizeof app->error];
        snprintf(msg, sizeof msg, "%s: %s", name ? name : "file", app->error);
        clear_asset(app);
        memcpy(app->error, msg, sizeof msg);
        return 0;
    }
    return 1;
}

WEB_EXPORT int web_is_mannequin(const web_app *app) { return app && app->mannequin; }
WEB_EXPORT uint32_t web_clip_count(const web_app *app) { return app && app->asset ? app->asset->clip_count : 0; }
WEB_EXPORT const char *web_clip_name(const web_app *app, uint32_t i) {
    return i < web_clip_count(app) ? sk_clip_name(app->asset->clips[i]) : "";
}
WEB_EXPORT double web_clip_duration(const web_app *app, uint32_t i) {
    return i < web_clip_count(app) ? sk_clip_duration(app->asset->clips[i]) : 0.0;
}
WEB_EXPORT uint32_t web_joint_count(const web_app *app) {
    return app && app->asset ? app->asset->skeleton->joint_count : 0;
}

/* Clip a (played; -1 none) and b (blended in; -1 none). b follows a's phase. */
WEB_EXPORT void web_set_clips(web_app *app, int32_t a, int32_t b) {
    uint32_t n = web_clip_count(app);
    if (!app || !n) return;
    double phase = sk_player_phase(&app->player_a);
    float speed = app->player_a.speed;
    bool paused = app->player_a.paused;
    app->clip_a = a >= 0 && (uint32_t)a < n ? a : -1;
    app->clip_b = b >= 0 && (uint32_t)b < n ? b : -1;
    sk_player_desc d = {.duration = app->clip_a >= 0 ? sk_clip_duration(app->asset->clips[app->clip_a]) : 0,
                        .speed = speed, .paused = paused};
    sk_player_init(&app->player_a, &d);
    if (app->clip_a >= 0 && a == app->clip_a) sk_player_seek_phase(&app->player_a, phase);
}
WEB_EXPORT void web_set_blend(web_app *app, float t) {
    if (app && isfinite(t)) app->blend = t < 0 ? 0 : t > 1 ? 1 : t;
}
WEB_EXPORT void web_set_speed(web_app *app, float s) {
    if (app && isfinite(s) && fabsf(s) <= 100) sk_player_set_speed(&app->player_a, s);
}
WEB_EXPORT void web_set_paused(web_app *app, int paused) {
    if (app) sk_player_set_paused(&app->player_a, paused != 0);
}
WEB_EXPORT void web_seek(web_app *app, double t) {
    if (app && isfinite(t)) sk_player_seek(&app->player_a, t);
}
WEB_EXPORT double web_time(const web_app *app) { return app ? sk_player_clip_time(&app->player_a) : 0.0; }
WEB_EXPORT void web_set_cpu_skinning(web_app *app, int on) {
    if (app) app->cpu_skinning = on != 0;
}

bool web_pose_clips(web_app *app, double dt) {
    const sk_asset *a = app->asset;
    const sk_skeleton *s = a->skeleton;
    sk_error err = {0};
    if (dt > 0) sk_player_advance(&app->player_a, dt, NULL, 0, NULL, NULL);
    if (app->clip_a < 0) {
        if (sk_pose_rest(s, &app->pose_a, &err) != SK_OK) return false;
    } else {
        double t = sk_player_clip_time(&app->player_a);
        if (sk_clip_sample(a->clips[app->clip_a], s, t, SK_LOOP_CLAMP, &app->pose_a, &err) != SK_OK) return false;
        if (app->clip_b >= 0 && app->blend > 0) {
            const sk_clip *cb = a->clips[app->clip_b];
            double tb = sk_player_phase(&app->player_a) * sk_clip_duration(cb);
            if (sk_clip_sample(cb, s, tb, SK_LOOP_CLAMP, &app->pose_b, &err) != SK_OK ||
                sk_blend_two(s, &app->pose_a, &app->pose_b, app->blend, NULL, false, &app->pose_a, &err) != SK_OK)
                return false;
        }
    }
    return sk_local_to_model(s, &app->pose_a, NULL, app->model, s->joint_count, &err) == SK_OK;
}

void web_pose_finish(web_app *app) {
    const sk_asset *a = app->asset;
    const sk_skeleton *s = a->skeleton;
    sk_error err = {0};
    for (uint32_t i = 0; i < app->draw_count; i++) {
        web_draw *d = &app->draws[i];
        sk_mat4 *pal = (sk_mat4 *)(app->palette + (size_t)d->palette_offset * 16);
        if (d->skin < 0) {
            *pal = app->model[d->joint];
            continue;
        }
        if (sk_skin_palette(&a->skins[d->skin], app->model, s->joint_count, pal, d->palette_count, &err) != SK_OK)
            continue;
        if (app->cpu_skinning && d->cpu) {
            sk_skin_job job = {0};
            job.mesh = d->cpu;
            job.method = SK_SKIN_LBS;
            job.palette = pal;
            job.palette_count = d->palette_count;
            job.out_positions = d->cpu_positions;
            job.out_normals = d->cpu_normals;
            sk_skin_run(&job, &err);
        }
    }
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->joint_count; j++) {
        int32_t p = s->parents[j];
        if (p < 0) continue;
        memcpy(&app->lines[n * 6], &app->model[p].m[12], 3 * sizeof(float));
        memcpy(&app->lines[n * 6 + 3], &app->model[j].m[12], 3 * sizeof(float));
        n++;
    }
    app->segment_count = n;
}

/* One frame: dt seconds of playback (or walking), the pose, palettes, CPU
 * skinning when on, the overlay. 1 on success, 0 with web_error set. */
WEB_EXPORT int web_frame(web_app *app, double dt) {
    if (!app || !app->asset) return 0;
    if (!isfinite(dt) || dt < 0) dt = 0;
    if (dt > 0.25) dt = 0.25;
    bool ok = app->walk ? web_walk_frame(app, dt) : web_pose_clips(app, dt);
    if (!ok) {
        if (!app->error[0]) snprintf(app->error, sizeof app->error, "the pose could not be computed");
        return 0;
    }
    web_pose_finish(app);
    return 1;
}

/* ---- What the page draws: pointers into wasm memory ------------------------ */
WEB_EXPORT uint32_t web_draw_count(const web_app *app) { return app ? app->draw_count : 0; }
static const web_draw *draw_at(const web_app *app, uint32_t i) {
    return app && i < app->draw_count ? &app->draws[i] : NULL;
}
WEB_EXPORT uint32_t web_draw_vertex_count(const web_app *app, uint32_t i) {
    const web_draw *d = draw_at(app, i);
    return d ? d->vertex_count : 0;
}
WEB_EXPORT uint32_t web_draw_index_count(const web_app *app, uint32_t i) {
    const web_draw *d = draw_at(app, i);
    return d ? d->index_count : 0;
}
/* what: 0 positions, 1 normals, 2 joints (u16 x4), 3 weights (x4), 4 indices
 * (u32), 5 colour (4 floats), 6 CPU-skinned positions, 7 CPU-skinned normals
 * (NULL when not skinned on the CPU). */
WEB_EXPORT const void *web_draw_data(const web_app *app, uint32_t i, uint32_t what) {
    const web_draw *d = draw_at(app, i);
    if (!d) return NULL;
    switch (what) {
    case 0: return d->positions;
    case 1: return d->normals;
    case 2: return d->joints;
    case 3: return d->weights;
    case 4: return d->indices;
    case 5: return d->color;
    case 6: return app->cpu_skinning && d->cpu ? d->cpu_positions : NULL;
    case 7: return app->cpu_skinning && d->cpu ? d->cpu_normals : NULL;
    }
    return NULL;
}
/* 1: skinned through its palette; 0: rigid, moved by its joint's matrix. */
WEB_EXPORT int web_draw_skinned(const web_app *app, uint32_t i) {
    const web_draw *d = draw_at(app, i);
    return d && d->skin >= 0;
}
WEB_EXPORT uint32_t web_draw_palette_offset(const web_app *app, uint32_t i) {
    const web_draw *d = draw_at(app, i);
    return d ? d->palette_offset : 0;
}
WEB_EXPORT uint32_t web_palette_count(const web_app *app) { return app ? app->palette_total : 0; }
WEB_EXPORT const float *web_palette(const web_app *app) { return app ? app->palette : NULL; }
WEB_EXPORT uint32_t web_segment_count(const web_app *app) { return app ? app->segment_count : 0; }
WEB_EXPORT const float *web_segments(const web_app *app) { return app ? app->lines : NULL; }
WEB_EXPORT const float *web_bounds(const web_app *app) { return app ? app->bounds : NULL; }
WEB_EXPORT const float *web_focus(const web_app *app) { return app ? app->focus : NULL; }
