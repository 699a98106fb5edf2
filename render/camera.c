/* The renderer's camera (skr_camera.h): orbit, framing, projection. No
 * OpenGL here: the browser viewer compiles this file too (web/CMakeLists.txt). */
#include "skr_camera.h"

#include <math.h>
#include <string.h>

static sk_mat4 look_at(const float eye[3], const float target[3]) {
    sk_vec3 e = {eye[0], eye[1], eye[2]}, t = {target[0], target[1], target[2]};
    sk_vec3 f = sk_vec3_normalize(sk_vec3_sub(t, e));
    sk_vec3 up = fabsf(f.y) > 0.99f ? sk_vec3_make(0, 0, -1) : sk_vec3_make(0, 1, 0);
    sk_vec3 s = sk_vec3_normalize(sk_vec3_cross(f, up));
    sk_vec3 u = sk_vec3_cross(s, f);
    sk_mat4 m = sk_mat4_identity();
    m.m[0] = s.x, m.m[4] = s.y, m.m[8] = s.z;
    m.m[1] = u.x, m.m[5] = u.y, m.m[9] = u.z;
    m.m[2] = -f.x, m.m[6] = -f.y, m.m[10] = -f.z;
    m.m[12] = -sk_vec3_dot(s, e), m.m[13] = -sk_vec3_dot(u, e), m.m[14] = sk_vec3_dot(f, e);
    return m;
}

static sk_mat4 perspective(float fovy, float aspect, float n, float f) {
    sk_mat4 m = {{0}};
    float t = 1.0f / tanf(fovy * 0.5f);
    m.m[0] = t / aspect;
    m.m[5] = t;
    m.m[10] = (f + n) / (n - f);
    m.m[11] = -1.0f;
    m.m[14] = 2.0f * f * n / (n - f);
    return m;
}

/* Orthographic: half_h metres above and below the view's centre. */
static sk_mat4 orthographic(float half_h, float aspect, float n, float f) {
    sk_mat4 m = {{0}};
    m.m[0] = 1.0f / (half_h * aspect);
    m.m[5] = 1.0f / half_h;
    m.m[10] = 2.0f / (n - f);
    m.m[14] = (f + n) / (n - f);
    m.m[15] = 1.0f;
    return m;
}

void skr_camera_orbit(skr_camera *c, const float target[3], float az_deg, float el_deg, float dist, int w, int h) {
    float az = az_deg * 3.14159265f / 180.0f, el = el_deg * 3.14159265f / 180.0f;
    memcpy(c->target, target, sizeof c->target);
    c->eye[0] = target[0] + dist * cosf(el) * sinf(az);
    c->eye[1] = target[1] + dist * sinf(el);
    c->eye[2] = target[2] + dist * cosf(el) * cosf(az);
    c->width = w, c->height = h;
    if (c->fov_y <= 0) c->fov_y = 35.0f * 3.14159265f / 180.0f;
    c->view = look_at(c->eye, c->target);
    float nearp = dist * 0.02f, farp = dist * 20.0f + 50.0f;
    c->proj = c->ortho > 0 ? orthographic(c->ortho, (float)w / (float)h, nearp, farp)
                           : perspective(c->fov_y, (float)w / (float)h, nearp, farp);
    c->viewproj = sk_mat4_mul(&c->proj, &c->view);
}

void skr_camera_frame(skr_camera *c, const float bmin[3], const float bmax[3], float az_deg, float el_deg, int w,
                      int h) {
    float ctr[3], r = 0;
    for (int i = 0; i < 3; i++) {
        ctr[i] = 0.5f * (bmin[i] + bmax[i]);
        float e = 0.5f * (bmax[i] - bmin[i]);
        r += e * e;
    }
    r = sqrtf(r);
    if (!(r > 1e-6f)) r = 1.0f;
    if (c->fov_y <= 0) c->fov_y = 35.0f * 3.14159265f / 180.0f;
    float aspect = (float)w / (float)h;
    float half = 0.5f * c->fov_y;
    float halfx = atanf(tanf(half) * aspect);
    float fit = fminf(half, halfx);
    float dist = r / sinf(fit) * 1.02f;
    skr_camera_orbit(c, ctr, az_deg, el_deg, dist, w, h);
}

bool skr_camera_project(const skr_camera *c, const float p[3], float *px, float *py) {
    const float *m = c->viewproj.m;
    float x = m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12];
    float y = m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13];
    float w = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
    if (w <= 1e-6f) return false;
    *px = (x / w * 0.5f + 0.5f) * (float)c->width;
    *py = (1.0f - (y / w * 0.5f + 0.5f)) * (float)c->height;
    return true;
}
