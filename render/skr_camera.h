/* The renderer's camera (render/camera.c): an orbit around a target and the
 * framing of a bounding box, as view and projection matrices. Plain math on
 * the core's types, no OpenGL: the off-screen renderer and the browser viewer
 * (web/, docs/web.md) frame a pose with the same code, so a viewer's fixed
 * view and `skelanim render` of the same pose draw the same picture.
 * Conventions: right-handed, y up, OpenGL clip space (z in -1..1), matrices
 * column-major (sk_mat4). Angles in degrees unless named otherwise. No state:
 * every function works on the camera it is given (thread safe per camera). */
#ifndef SKR_CAMERA_H
#define SKR_CAMERA_H

#include "skelanim.h"

#include <stdbool.h>

typedef struct skr_camera {
    sk_mat4 view, proj, viewproj;
    float eye[3], target[3];
    int width, height;
    float fov_y; /* radians, vertical; input to skr_camera_orbit/frame: 0 = 35 degrees (zero-initialise the struct) */
    float ortho; /* input to skr_camera_orbit: > 0, an orthographic view this many metres above and below
                    its centre (a true side view); 0, perspective */
} skr_camera;
/* Looks at target from azimuth/elevation (degrees; azimuth 0 = from +Z, the
 * glTF front, 90 = from +X) at distance dist, for a w x h picture: near plane
 * dist / 50, far plane 20 dist + 50 (model units). */
void skr_camera_orbit(skr_camera *c, const float target[3], float az_deg, float el_deg, float dist, int w, int h);
/* Frames an AABB (bmin, bmax): looks at its centre from az/el at the distance
 * where its bounding sphere fits the narrower field of view, with a 2% margin
 * (an empty or degenerate box is framed as a sphere of radius 1). */
void skr_camera_frame(skr_camera *c, const float bmin[3], const float bmax[3], float az_deg, float el_deg, int w,
                      int h);
/* Projects a world point to pixel coordinates (x right, y down, pixel centres
 * at +0.5). Returns false when behind the camera. */
bool skr_camera_project(const skr_camera *c, const float p[3], float *px, float *py);

#endif
