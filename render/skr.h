/* skelanim render library (not part of the core): OpenGL 3.3 core through
 * libepoxy, GPU skinning in the vertex shader with the palette in a texture
 * buffer (any joint count), CPU skinning path for comparison, lit shading
 * with the base colour and base-colour texture, ground grid, skeleton
 * overlay, off-screen contexts (EGL surfaceless: Mesa llvmpipe, no display or
 * GPU needed), PNG and GIF writing. Used by the CLI's render, view and demo
 * commands (the SDL2 window itself is in cli/cmd_view.c). */
#ifndef SKR_H
#define SKR_H

#include "skelanim.h"

#include <stddef.h>

/* ---- Contexts ------------------------------------------------------------ */
typedef struct skr_headless skr_headless;
/* An off-screen GL 3.3 core context with a w x h framebuffer (samples: MSAA
 * count, 0/1 = none). Fails with a message (no EGL, no surfaceless platform). */
skr_headless *skr_headless_create(int w, int h, int samples, sk_error *err);
void skr_headless_destroy(skr_headless *h);
void skr_headless_bind(skr_headless *h);  /* render into its framebuffer */
/* Reads the frame (after resolving MSAA): rgb, top row first, w*h*3 bytes. */
void skr_headless_read(skr_headless *h, unsigned char *rgb);

/* ---- Camera: skr_camera.h (no GL; the browser viewer frames its fixed views with it) ---- */
#include "skr_camera.h"

/* ---- Model ---------------------------------------------------------------- */
typedef struct skr_model skr_model;
/* Uploads every triangle primitive of every mesh node of the asset (GPU
 * buffers; a GL context must be current), with base-colour textures decoded
 * from the asset's images (the asset is all it reads: no file is opened).
 * The asset must outlive the model. */
#define SKR_MODEL_NO_TEXTURES 1u /* flags: draw with the base colour factors only */
sk_result skr_model_create(const sk_asset *asset, unsigned flags, skr_model **out, sk_error *err);
void skr_model_destroy(skr_model *m);
/* Matrices per instance in the palette (all skins and rigid mesh nodes). */
uint32_t skr_model_palette_size(const skr_model *m);
/* Vertices per instance for CPU skinning output (6 floats each: pos, normal). */
uint32_t skr_model_vertex_count(const skr_model *m);
bool skr_model_has_morph(const skr_model *m);
/* One instance's palette from the skeleton's model matrices (root applied). */
void skr_model_palette(const skr_model *m, const sk_mat4 *world, sk_mat4 *out_palette);
/* CPU skinning of one instance into out (vertex_count * 6 floats: position,
 * normal), morph weights = the pose's weight array (may be NULL). */
sk_result skr_model_skin_cpu(const skr_model *m, const sk_mat4 *palette, const float *pose_weights,
                             sk_skin_method method, sk_simd simd, float *out, sk_error *err);
/* AABB of one instance (CPU-skinned positions), merged into bmin/bmax. */
void skr_model_bounds(const skr_model *m, const sk_mat4 *palette, const float *pose_weights, float bmin[3],
                      float bmax[3]);

/* ---- Drawing ---------------------------------------------------------------- */
typedef struct skr_renderer skr_renderer;
sk_result skr_renderer_create(skr_renderer **out, sk_error *err);
void skr_renderer_destroy(skr_renderer *r);

typedef struct skr_frame_desc {
    const skr_camera *camera;
    float background[3];
    bool grid;
    float ground_y;
    float grid_extent;        /* half size in metres (0 = 30) */
    float ground_slope[2];    /* tilted ground: y = ground_y + slope[0] * x + slope[1] * z (0, 0 = level) */
} skr_frame_desc;
void skr_begin_frame(skr_renderer *r, const skr_frame_desc *f);

typedef struct skr_draw_desc {
    const skr_model *model;
    uint32_t instance_count;
    const sk_mat4 *palettes;  /* instance_count * palette_size (GPU skinning) */
    const float *cpu_vertices;/* or: instance_count * vertex_count * 6 floats (CPU-skinned) */
    const float *tints;       /* rgba per instance, or NULL (white) */
} skr_draw_desc;
void skr_draw_model(skr_renderer *r, const skr_draw_desc *d);
/* Skeleton overlay: lines from each joint to its parent (world positions). */
void skr_draw_skeleton(skr_renderer *r, const sk_skeleton *s, const sk_mat4 *world, const float rgb[3]);
/* A target marker: a 3D cross of half-size `size` (model units) and a dot
 * at p, drawn over everything (no depth test). */
void skr_draw_target(skr_renderer *r, const float p[3], float size, const float rgb[3]);
/* Debug markers: the given vertices of the model's first item, GPU-skinned
 * with instance 0's palette, as points of size px in the given colours. */
void skr_draw_markers(skr_renderer *r, const skr_model *m, const sk_mat4 *palette, const uint32_t *vertices,
                      uint32_t count, const unsigned char (*rgb)[3], float px);

/* ---- Overlay (render/overlay.c) -------------------------------------------------- */
/* Debug drawing over a frame: lines of any width in world space, filled
 * convex polygons, and an RGBA image (a HUD) over the framebuffer. Its own
 * GL programs: a GL context must be current; draw between skr_begin_frame
 * and the read-back or swap. Overlays write no depth, so they never hide
 * what is drawn after them; each call leaves blending off and depth test on. */
typedef struct skr_overlay skr_overlay;
typedef struct skr_overlay_style {
    float rgba[4];            /* colour; alpha < 1 blends */
    float width;              /* line width in pixels (lines only; 0 = 1) */
    bool depth_test;          /* hidden behind the scene (with a small bias toward the eye), or drawn over it */
} skr_overlay_style;
sk_result skr_overlay_create(skr_overlay **out, sk_error *err);
void skr_overlay_destroy(skr_overlay *o);
/* count world points (xyz): segments of pairs, or one polyline (strip). The
 * camera's width and height must be the framebuffer's. */
void skr_overlay_lines(skr_overlay *o, const skr_camera *c, const float *xyz, uint32_t count, bool strip,
                       const skr_overlay_style *s);
/* A convex polygon of count world points (a triangle fan), filled. */
void skr_overlay_polygon(skr_overlay *o, const skr_camera *c, const float *xyz, uint32_t count,
                         const skr_overlay_style *s);
/* A w x h image of premultiplied BGRA bytes (cairo's ARGB32 on a
 * little-endian machine; rows of 4 w bytes, top row first) blended over a
 * fb_w x fb_h framebuffer with its top-left corner at pixel (x, y). */
void skr_overlay_image(skr_overlay *o, const unsigned char *bgra, int w, int h, int x, int y, int fb_w, int fb_h);

/* ---- Terrain ------------------------------------------------------------------ */
/* A terrain's triangles on the GPU (world space, with normals), drawn lit with
 * grid lines every 0.5 m and 2 m so slopes read. A GL context must be current. */
typedef struct skr_terrain skr_terrain;
typedef struct skr_terrain_area {
    float min_x, min_z, max_x, max_z; /* the rectangle drawn */
    float y_top, y_bottom;            /* the vertical rays run from y_top down to y_bottom */
    float spacing;                    /* sample spacing in metres (0: the larger side / 240, 1 to 10 cm) */
} skr_terrain_area;
/* A height field sampled by vertical ray casts over the area. Where the ground
 * jumps between two samples (a riser, a ledge: the last millimetre of a
 * bisection along the sample edge holds most of the step), the cell is split
 * at the step (found to 1 mm) and a vertical wall joins the two heights, so
 * risers are drawn vertical and treads flat. Points without a hit leave holes. */
sk_result skr_terrain_create_heightfield(const sk_terrain *terrain, const skr_terrain_area *area, skr_terrain **out,
                                         sk_error *err);
/* The triangles of every triangle primitive of the asset's mesh nodes in world
 * space at the rest pose (skinned meshes by their rest palette), flat-shaded.
 * The asset may be destroyed afterwards. */
sk_result skr_terrain_create_mesh(const sk_asset *asset, skr_terrain **out, sk_error *err);
void skr_terrain_destroy(skr_terrain *t);
/* The CPU copy: triangle_count * 3 vertices of 6 floats (position, normal). */
const float *skr_terrain_vertices(const skr_terrain *t, uint32_t *triangle_count);
/* Draws it. fade_center/fade_radius: beyond 0.55 radius from the centre (x, z)
 * the terrain fades into the background colour (fade_radius 0: no fade). */
void skr_draw_terrain(skr_renderer *r, const skr_terrain *t, const float fade_center[2], float fade_radius,
                      const float background[3]);

/* ---- Images ------------------------------------------------------------------ */
/* PNG. rgb top row first. */
sk_result skr_write_image(const char *path, const unsigned char *rgb, int w, int h, sk_error *err);
typedef struct skr_gif skr_gif;
sk_result skr_gif_open(const char *path, int w, int h, skr_gif **out, sk_error *err);
/* delay in 1/100 s. */
sk_result skr_gif_add(skr_gif *g, const unsigned char *rgb, int delay_cs, sk_error *err);
sk_result skr_gif_close(skr_gif *g, sk_error *err);

#endif
