/* The browser viewer's C side (docs/web.md): one web_app per page, made by
 * web_app_create and handed to JavaScript as a pointer; every export takes
 * it first. Internal to web/, not part of the library. */
#ifndef SKELANIM_WEB_H
#define SKELANIM_WEB_H

#include <skelanim.h>

#include "skr_camera.h" /* render/camera.c: the renderer's framing, no GL */

#include <stdbool.h>
#include <stdint.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define WEB_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define WEB_EXPORT
#endif

/* One triangle primitive as the page draws it: streams for the GPU (four
 * influences per vertex: the strongest four of eight, renormalised), its
 * palette's place in the app's palette array, and the CPU-skinned copy. */
typedef struct web_draw {
    const sk_primitive *prim;
    int32_t skin;                /* skin index, or -1: rigid, moved by the joint's matrix */
    uint32_t joint;              /* the joint holding the mesh */
    uint32_t palette_offset, palette_count;
    uint32_t vertex_count, index_count;
    float *positions, *normals;  /* vertex_count * 3 (bind pose) */
    uint16_t *joints;            /* vertex_count * 4, palette entries */
    float *weights;              /* vertex_count * 4 */
    uint32_t *indices;
    float color[4];
    sk_skinned_mesh *cpu;        /* NULL: drawn through the palette always */
    float *cpu_positions, *cpu_normals;
} web_draw;

typedef struct web_walk web_walk; /* web_walk.c */

typedef struct web_app {
    sk_asset *asset;
    bool mannequin;
    sk_pose pose_a, pose_b;
    sk_mat4 *model;              /* joint_count model (walking: world) matrices */
    float *palette;              /* palette_total matrices, column-major */
    uint32_t palette_total;
    web_draw *draws;
    uint32_t draw_count;
    float *lines;                /* skeleton overlay: segments * 2 points * 3 floats */
    uint32_t segment_count;
    sk_player player_a, player_b;
    int32_t clip_a, clip_b;      /* -1: none (rest pose / no blend) */
    float blend;                 /* 0 = clip a, 1 = clip b */
    bool cpu_skinning;
    float bounds[6];             /* min xyz, max xyz of the rest pose's vertices and joints */
    float focus[3];              /* where the camera looks */
    web_walk *walk;
    skr_camera camera;           /* the fixed view (web_view_frame), as skelanim render frames the pose */
    float markers[2 * 64];       /* web_view_markers: pixel x, y of posed vertices */
    char error[512];
} web_app;

/* ---- Exports (web_view.c, web_walk.c; documented there) ------------------- */
WEB_EXPORT web_app *web_app_create(void);
WEB_EXPORT void web_app_destroy(web_app *app);
WEB_EXPORT const char *web_error(const web_app *app);
WEB_EXPORT int web_load(web_app *app, const void *data, uint32_t size, const char *name);
WEB_EXPORT int web_is_mannequin(const web_app *app);
WEB_EXPORT uint32_t web_clip_count(const web_app *app);
WEB_EXPORT const char *web_clip_name(const web_app *app, uint32_t i);
WEB_EXPORT double web_clip_duration(const web_app *app, uint32_t i);
WEB_EXPORT uint32_t web_joint_count(const web_app *app);
WEB_EXPORT void web_set_clips(web_app *app, int32_t a, int32_t b);
WEB_EXPORT void web_set_blend(web_app *app, float t);
WEB_EXPORT void web_set_speed(web_app *app, float s);
WEB_EXPORT void web_set_paused(web_app *app, int paused);
WEB_EXPORT void web_seek(web_app *app, double t);
WEB_EXPORT double web_time(const web_app *app);
WEB_EXPORT void web_set_cpu_skinning(web_app *app, int on);
WEB_EXPORT int web_frame(web_app *app, double dt);
WEB_EXPORT uint32_t web_draw_count(const web_app *app);
WEB_EXPORT uint32_t web_draw_vertex_count(const web_app *app, uint32_t i);
WEB_EXPORT uint32_t web_draw_index_count(const web_app *app, uint32_t i);
WEB_EXPORT const void *web_draw_data(const web_app *app, uint32_t i, uint32_t what);
WEB_EXPORT int web_draw_skinned(const web_app *app, uint32_t i);
WEB_EXPORT uint32_t web_draw_palette_offset(const web_app *app, uint32_t i);
WEB_EXPORT uint32_t web_palette_count(const web_app *app);
WEB_EXPORT const float *web_palette(const web_app *app);
WEB_EXPORT uint32_t web_segment_count(const web_app *app);
WEB_EXPORT const float *web_segments(const web_app *app);
WEB_EXPORT const float *web_bounds(const web_app *app);
WEB_EXPORT const float *web_focus(const web_app *app);
WEB_EXPORT int web_walk_start(web_app *app, int kind, int terrain);
WEB_EXPORT void web_walk_stop(web_app *app);
WEB_EXPORT void web_walk_set_speed(web_app *app, float speed);
WEB_EXPORT int web_walking(const web_app *app);
WEB_EXPORT const float *web_terrain_vertices(const web_app *app);
WEB_EXPORT uint32_t web_terrain_vertex_count(const web_app *app);
WEB_EXPORT const uint32_t *web_terrain_indices(const web_app *app);
WEB_EXPORT uint32_t web_terrain_index_count(const web_app *app);
WEB_EXPORT const float *web_view_frame(web_app *app, float az, float el, int w, int h);
WEB_EXPORT const float *web_view_markers(web_app *app, uint32_t count);

/* The pose in app->model, then palettes, CPU skinning and overlay lines. */
void web_pose_finish(web_app *app);
/* The clip player's pose into app->model. */
bool web_pose_clips(web_app *app, double dt);
void web_walk_destroy(web_walk *w);
/* One walking frame: app->model in world space, app->focus on the character. */
bool web_walk_frame(web_app *app, double dt);

#endif
