/* The browser viewer's walkers (web.h): the mannequin walking a circle on a
 * terrain, driven either by the semi-procedural locomotor (its walk and run
 * clips, analysed at start, with its idle) or by the IK-only procedural
 * walker; and the terrain as a triangle grid for the page to draw. */
#include "web.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WEB_GRID 81          /* terrain grid points per side */
#define WEB_GRID_SIZE 12.0f  /* metres per side, centred on the origin */
#define WEB_RADIUS 3.0f      /* the circle walked, metres */

struct web_walk {
    sk_terrain_shape shape;
    sk_terrain terrain;
    sk_leg_desc legs[2];
    sk_motion_analysis *an[2];
    const sk_clip *clips[2]; /* the locomotor keeps this array */
    sk_motion_group *group;
    sk_locomotor *loco;
    sk_procedural *proc;
    float speed;             /* m/s along the circle */
    float angle;             /* where on the circle, radians */
    float *mesh;             /* terrain: WEB_GRID^2 points, position + normal */
    uint32_t *indices;
    uint32_t index_count;
};

void web_walk_destroy(web_walk *w) {
    if (!w) return;
    sk_locomotor_destroy(w->loco);
    sk_procedural_destroy(w->proc);
    sk_motion_group_destroy(w->group);
    for (int i = 0; i < 2; i++) sk_motion_analysis_destroy(w->an[i]);
    free(w->mesh);
    free(w->indices);
    free(w);
}

static bool make_terrain(web_walk *w, int kind, sk_error *err) {
    switch (kind) {
    case 1: {
        sk_terrain_bumps_options o = {.amplitude = 0.12f, .wavelength = 3.0f, .seed = 7};
        return sk_terrain_bumps(&w->shape, &o, &w->terrain, err) == SK_OK;
    }
    case 2: {
        sk_terrain_ramp_options o = {.angle = 0.15f, .start = {-1.5f, 0, 0}, .direction = {1, 0, 0}, .length = 3};
        return sk_terrain_ramp(&w->shape, &o, &w->terrain, err) == SK_OK;
    }
    default: w->terrain = sk_terrain_flat(&w->shape, 0); return true;
    }
}

static bool make_mesh(web_walk *w) {
    const uint32_t n = WEB_GRID;
    w->mesh = malloc((size_t)n * n * 6 * sizeof(float));
    w->index_count = (n - 1) * (n - 1) * 6;
    w->indices = malloc((size_t)w->index_count * sizeof(uint32_t));
    if (!w->mesh || !w->indices) return false;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < n; k++) {
            float x = -0.5f * WEB_GRID_SIZE + WEB_GRID_SIZE * (float)k / (float)(n - 1);
            float z = -0.5f * WEB_GRID_SIZE + WEB_GRID_SIZE * (float)i / (float)(n - 1);
            sk_terrain_hit h = {.point = {x, 0, z}, .normal = {0, 1, 0}};
            sk_terrain_height(&w->terrain, x, z, 10.0f, 30.0f, &h);
            float *v = &w->mesh[((size_t)i * n + k) * 6];
            v[0] = x, v[1] = h.point.y, v[2] = z;
            v[3] = h.normal.x, v[4] = h.normal.y, v[5] = h.normal.z;
        }
    uint32_t *q = w->indices;
    for (uint32_t i = 0; i + 1 < n; i++)
        for (uint32_t k = 0; k + 1 < n; k++) {
            uint32_t a = i * n + k, b = a + 1, c = a + n, d = c + 1;
            *q++ = a, *q++ = c, *q++ = b, *q++ = b, *q++ = c, *q++ = d;
        }
    return true;
}

static bool make_locomotor(web_app *app, web_walk *w, sk_error *err) {
    const sk_asset *a = app->asset;
    const sk_skeleton *s = a->skeleton;
    const char *names[2] = {"walk", "run"};
    const sk_clip **clips = w->clips;
    for (int i = 0; i < 2; i++) {
        int32_t c = sk_asset_find_clip(a, names[i]);
        if (c < 0) {
            snprintf(err->message, sizeof err->message, "no clip \"%s\"", names[i]);
            return false;
        }
        clips[i] = a->clips[c];
        sk_motion_analysis_options ao = {0};
        if (sk_motion_analyze(s, clips[i], w->legs, 2, &ao, NULL, &w->an[i], err) != SK_OK) return false;
    }
    if (sk_motion_group_create((const sk_motion_analysis *const *)w->an, 2, NULL, &w->group, err) != SK_OK) return false;
    int32_t idle = sk_asset_find_clip(a, "idle");
    sk_locomotor_desc d = {0};
    d.skeleton = s;
    d.group = w->group;
    d.clips = clips;
    d.clip_count = 2;
    d.idle = idle >= 0 ? a->clips[idle] : NULL;
    d.terrain = w->terrain;
    d.body_joint = -1;
    return sk_locomotor_create(&d, NULL, &w->loco, err) == SK_OK;
}

static void circle(const web_walk *w, float *x, float *z, float *yaw) {
    *x = WEB_RADIUS * sinf(w->angle);
    *z = WEB_RADIUS * cosf(w->angle);
    /* moving counter-clockwise seen from above: direction (cos, -sin) */
    *yaw = atan2f(cosf(w->angle), -sinf(w->angle));
}

/* Starts walking: kind 0 the locomotor, 1 the procedural walker; terrain 0
 * flat, 1 bumps, 2 a ramp. The mannequin only (it has the clips and limbs). */
WEB_EXPORT int web_walk_start(web_app *app, int kind, int terrain) {
    if (!app || !app->asset) return 0;
    web_walk_destroy(app->walk);
    app->walk = NULL;
    if (!app->mannequin) {
        snprintf(app->error, sizeof app->error, "walking needs the mannequin (its clips and limbs)");
        return 0;
    }
    const sk_skeleton *s = app->asset->skeleton;
    sk_error err = {0};
    web_walk *w = calloc(1, sizeof *w);
    if (!w) return 0;
    w->speed = 1.2f;
    bool ok = make_terrain(w, terrain, &err) && make_mesh(w) && sk_legs_find(s, w->legs, 2) == 2 &&
              sk_leg_points_from_mesh(app->asset, w->legs, 2, NULL, NULL, &err) == SK_OK;
    if (ok && kind == 1) {
        sk_procedural_desc pd = {0};
        pd.skeleton = s;
        pd.legs[0] = w->legs[0];
        pd.legs[1] = w->legs[1];
        pd.body_joint = -1;
        pd.terrain = w->terrain;
        ok = sk_procedural_create(&pd, NULL, &w->proc, &err) == SK_OK;
    } else if (ok) {
        ok = make_locomotor(app, w, &err);
    }
    float x, z, yaw;
    circle(w, &x, &z, &yaw);
    if (ok) ok = w->proc ? sk_procedural_reset(w->proc, x, z, yaw, &err) == SK_OK
                         : sk_locomotor_reset(w->loco, x, z, yaw, &err) == SK_OK;
    if (!ok) {
        snprintf(app->error, sizeof app->error, "walk: %s", err.message[0] ? err.message : "no legs found");
        web_walk_destroy(w);
        return 0;
    }
    app->walk = w;
    return web_frame(app, 1.0 / 60);
}

WEB_EXPORT void web_walk_stop(web_app *app) {
    if (!app) return;
    web_walk_destroy(app->walk);
    app->walk = NULL;
    for (int k = 0; k < 3; k++) app->focus[k] = 0.5f * (app->bounds[k] + app->bounds[3 + k]);
}

WEB_EXPORT void web_walk_set_speed(web_app *app, float speed) {
    if (app && app->walk && isfinite(speed)) app->walk->speed = speed < 0 ? 0 : speed > 5 ? 5 : speed;
}

bool web_walk_frame(web_app *app, double dt) {
    web_walk *w = app->walk;
    const sk_skeleton *s = app->asset->skeleton;
    sk_error err = {0};
    if (dt <= 0) dt = 1e-4;
    w->angle += w->speed * (float)dt / WEB_RADIUS;
    if (w->angle > 6.283185307f) w->angle -= 6.283185307f;
    float x, z, yaw;
    circle(w, &x, &z, &yaw);
    const sk_mat4 *world = NULL;
    if (w->proc) {
        if (sk_procedural_update(w->proc, dt, x, z, yaw, &app->pose_a, &err) == SK_OK) world = sk_procedural_model(w->proc);
    } else if (sk_locomotor_update(w->loco, dt, x, z, yaw, &app->pose_a, &err) == SK_OK) {
        world = sk_locomotor_model(w->loco);
    }
    if (!world) {
        snprintf(app->error, sizeof app->error, "walk: %s", err.message);
        return false;
    }
    memcpy(app->model, world, s->joint_count * sizeof *app->model);
    sk_terrain_hit h = {.point = {x, 0, z}};
    sk_terrain_height(&w->terrain, x, z, 10.0f, 30.0f, &h);
    app->focus[0] = x;
    app->focus[1] = h.point.y + 0.5f * (app->bounds[4] - app->bounds[1]);
    app->focus[2] = z;
    return true;
}

WEB_EXPORT int web_walking(const web_app *app) { return app && app->walk ? (app->walk->proc ? 2 : 1) : 0; }
/* The terrain grid: position and normal per point (6 floats), triangles. */
WEB_EXPORT const float *web_terrain_vertices(const web_app *app) { return app && app->walk ? app->walk->mesh : NULL; }
WEB_EXPORT uint32_t web_terrain_vertex_count(const web_app *app) { return app && app->walk ? WEB_GRID * WEB_GRID : 0; }
WEB_EXPORT const uint32_t *web_terrain_indices(const web_app *app) { return app && app->walk ? app->walk->indices : NULL; }
WEB_EXPORT uint32_t web_terrain_index_count(const web_app *app) { return app && app->walk ? app->walk->index_count : 0; }
