/* skelanim command-line tool: walks over terrains recorded frame by frame and
 * drawn off-screen into one GIF or PNG (cli/loco_view.c), for `locomote` and
 * the walking demos (`demo locomotion`, `demo procedural`). */
#ifndef SK_CLI_LOCO_VIEW_H
#define SK_CLI_LOCO_VIEW_H

#include "loco_overlay.h"
#include "loco_run.h"
#include "skr.h"
#include "terrain_spec.h"

#include <stdio.h>

/* One recorded frame: the joints' world matrices and the root on the ground. */
typedef struct frame_rec {
    sk_mat4 *world; /* joint_count */
    sk_vec3 center;
    loco_overlay_frame *ov; /* the debugging view's data (rec_ctx.overlay), or NULL */
} frame_rec;

/* What loco_record keeps: the --trace lines, the frames to draw (fps_out
 * of them per second), the bounds of the root's path. */
typedef struct rec_ctx {
    FILE *trace;
    bool keep_frames;
    double fps_out, next_out;
    frame_rec *frames;
    uint32_t nframes, cap;
    float bmin[3], bmax[3];
    bool overlay;             /* keep each kept frame's loco_overlay_frame too */
    /* Written on the trace's first line (when set): the path ("path": [[x, z]...])
     * and the terrain's spec ("terrain"), with the skeleton's "parents", so
     * that `view TRACE.jsonl` can replay the walk alone. */
    const char *path_text, *terrain_spec;
    uint32_t lines;
} rec_ctx;

/* An empty recording: trace (or NULL), frames kept at fps_out (0: none). */
void loco_record_init(rec_ctx *r, FILE *trace, double fps_out);
/* A loco_frame_fn (loco_run.h): user is a rec_ctx. */
bool loco_record(void *user, const loco_char *c, double t);
void loco_record_free(rec_ctx *r);
/* The debugging view's frame of c's locomotor at time t; false for the
 * IK-only walker (no locomotor). */
bool loco_view_overlay_frame(const loco_char *c, double t, loco_overlay_frame *out);
/* The terrain drawn around the path's bounds bmin/bmax (the built-in
 * terrains as height fields, a mesh as its triangles); fade centre and radius out. */
sk_result loco_view_terrain(const cli_terrain *terrain, const float bmin[3], const float bmax[3], skr_terrain **out,
                            float fade_center[2], float *fade_radius, sk_error *err);

/* Off-screen drawing of walks over terrains, into one GIF or PNG. */
typedef struct loco_view {
    bool side;                /* the side view (seed 004's figures): from +X, orthographic, the ground
                                 as its profile under the character; bones, or a cut-out's mesh */
    bool overlay;             /* draw the debugging view (frames[].ov; loco_overlay.h) */
    const float *path_xz;     /* with overlay: the path drawn (path_n x, z pairs) */
    uint32_t path_n;
    loco_overlay *ov;
    skr_overlay *ground;      /* the side view's ground profile */
    skr_headless *hd;
    skr_renderer *rn;
    skr_gif *gif;
    unsigned char *rgb;
    uint32_t w, h;
    uint32_t frames;
} loco_view;

/* A w x h context, and a GIF at gif_path (or none: PNG frames). */
bool loco_view_open(loco_view *v, const char *gif_path, uint32_t w, uint32_t h, sk_error *err);
void loco_view_close(loco_view *v);
/* Draws frames [first, last) of a walk over its terrain (the GIF's next
 * frames, or one PNG). bmin/bmax: the path's bounds (the terrain drawn
 * around them). The camera (tests project points with it): skr_camera_orbit
 * around the frame's center + 0.85 m up, azimuth -75 degrees, elevation 8,
 * 4 m away, the default 35-degree field of view (the side view: azimuth 90,
 * elevation 2, 4.5 m, orthographic, 1.4 m above and below the centre; bones,
 * or the mesh of a cut-out, loco_view_cutout). */
/* Whether every mesh of the asset is a flat cut-out in the side plane (each
 * normal along X, as @sprite's): the side view draws it instead of bones. */
bool loco_view_cutout(const sk_asset *a);
bool loco_view_scene(loco_view *v, const loco_char *c, const cli_terrain *terrain, const frame_rec *frames,
                     uint32_t first, uint32_t last, double fps_out, const float bmin[3], const float bmax[3],
                     const char *png, sk_error *err);

#endif
