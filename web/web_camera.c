/* The browser viewer's fixed view (docs/web.md): the current pose framed as
 * `skelanim render` frames it (render/camera.c, the same code: the bounds of
 * the posed vertices, or of the joints when nothing has a mesh, seen from an
 * azimuth and elevation at the distance that fits them), and posed vertices
 * projected through that camera, for a test to find in the picture. */
#include "web.h"

#include <math.h>

/* Vertex v of draw d as the current pose places it (the palette of the last
 * web_frame: skinned by its skin's palette, or moved by its joint's matrix). */
static bool posed_vertex(const web_app *app, const web_draw *d, uint32_t v, float out[3]) {
    const sk_mat4 *pal = (const sk_mat4 *)(app->palette + (size_t)d->palette_offset * 16);
    sk_vec3 o;
    bool ok = d->skin >= 0 ? sk_primitive_vertex_position(d->prim, v, NULL, pal, d->palette_count, NULL, &o)
                           : sk_primitive_vertex_position(d->prim, v, NULL, NULL, 0, pal, &o);
    out[0] = o.x, out[1] = o.y, out[2] = o.z;
    return ok && isfinite(o.x) && isfinite(o.y) && isfinite(o.z);
}

static void grow(float *lo, float *hi, const float *p) {
    for (int k = 0; k < 3; k++) {
        if (p[k] < lo[k]) lo[k] = p[k];
        if (p[k] > hi[k]) hi[k] = p[k];
    }
}

/* Frames the current pose (call after web_frame) for a w x h canvas from
 * azimuth az and elevation el (degrees; skelanim render's defaults are 35 and
 * 12) and keeps the camera; returns its view-projection matrix (16 floats,
 * column-major), or NULL for bad arguments (no asset, a size outside 1 to
 * 16384, a non-finite angle, an elevation outside (-90, 90)). */
WEB_EXPORT const float *web_view_frame(web_app *app, float az, float el, int w, int h) {
    if (!app || !app->asset || w < 1 || h < 1 || w > 16384 || h > 16384 || !isfinite(az) || !(fabsf(el) < 90.0f))
        return NULL;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, p[3];
    for (uint32_t i = 0; i < app->draw_count; i++)
        for (uint32_t v = 0; v < app->draws[i].vertex_count; v++)
            if (posed_vertex(app, &app->draws[i], v, p)) grow(lo, hi, p);
    if (app->draw_count == 0)
        for (uint32_t j = 0; j < app->asset->skeleton->joint_count; j++) grow(lo, hi, &app->model[j].m[12]);
    if (!(lo[0] <= hi[0])) lo[0] = lo[1] = lo[2] = hi[0] = hi[1] = hi[2] = 0.0f;
    app->camera = (skr_camera){.fov_y = 0}; /* 0: the renderer's field of view, 35 degrees */
    skr_camera_frame(&app->camera, lo, hi, az, el, w, h);
    return app->camera.viewproj.m;
}

/* count (at most 64) vertices spread evenly over all the primitives' vertices
 * (the k-th of count at (k + 0.5) / count of the way), as the current pose
 * places them, projected through the camera of the last web_view_frame:
 * pixel x, y pairs (x right, y down, pixel centres at +0.5); NaN for a vertex
 * behind the camera. NULL when there is no mesh or no framed camera. */
WEB_EXPORT const float *web_view_markers(web_app *app, uint32_t count) {
    if (!app || !app->asset || app->camera.width < 1 || count == 0 || count > 64) return NULL;
    uint64_t total = 0;
    for (uint32_t i = 0; i < app->draw_count; i++) total += app->draws[i].vertex_count;
    if (total == 0) return NULL;
    for (uint32_t k = 0; k < count; k++) {
        uint64_t g = (uint64_t)((k + 0.5) / count * (double)total);
        uint32_t i = 0;
        while (g >= app->draws[i].vertex_count) g -= app->draws[i++].vertex_count;
        float p[3], *m = &app->markers[2 * k];
        m[0] = m[1] = NAN;
        if (posed_vertex(app, &app->draws[i], (uint32_t)g, p) && !skr_camera_project(&app->camera, p, &m[0], &m[1]))
            m[0] = m[1] = NAN;
    }
    return app->markers;
}
