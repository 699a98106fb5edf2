/* skelanim — math: vec3, quaternion (x,y,z,w), mat4 (column-major, like glTF
 * and GLSL: element [12],[13],[14] is the translation), TRS transform.
 * All functions are pure; scalar reference code. */
#ifndef SKELANIM_MATH_H
#define SKELANIM_MATH_H

#include "skelanim/core/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_vec3 { float x, y, z; } sk_vec3;
typedef struct sk_quat { float x, y, z, w; } sk_quat;
typedef struct sk_mat4 { float m[16]; } sk_mat4; /* column-major: m[col*4+row] */
typedef struct sk_transform { sk_vec3 t; sk_quat r; sk_vec3 s; } sk_transform;

/* Small helpers, inline so per-joint loops pay no call. */
static inline sk_vec3 sk_vec3_make(float x, float y, float z) { sk_vec3 r = {x, y, z}; return r; }
static inline sk_vec3 sk_vec3_add(sk_vec3 a, sk_vec3 b) { return sk_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline sk_vec3 sk_vec3_sub(sk_vec3 a, sk_vec3 b) { return sk_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline sk_vec3 sk_vec3_scale(sk_vec3 a, float s) { return sk_vec3_make(a.x * s, a.y * s, a.z * s); }
static inline sk_vec3 sk_vec3_mul(sk_vec3 a, sk_vec3 b) { return sk_vec3_make(a.x * b.x, a.y * b.y, a.z * b.z); } /* component-wise */
static inline float sk_vec3_dot(sk_vec3 a, sk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline sk_vec3 sk_vec3_cross(sk_vec3 a, sk_vec3 b) {
    return sk_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline sk_quat sk_quat_make(float x, float y, float z, float w) { sk_quat q = {x, y, z, w}; return q; }
static inline sk_quat sk_quat_identity(void) { return sk_quat_make(0.0f, 0.0f, 0.0f, 1.0f); }
static inline sk_quat sk_quat_conjugate(sk_quat q) { return sk_quat_make(-q.x, -q.y, -q.z, q.w); }
static inline float sk_quat_dot(sk_quat a, sk_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

/* a + (b - a) t. */
SK_API sk_vec3 sk_vec3_lerp(sk_vec3 a, sk_vec3 b, float t);
/* |a|. */
SK_API float sk_vec3_length(sk_vec3 a);
SK_API sk_vec3 sk_vec3_normalize(sk_vec3 a); /* zero vector stays zero */

/* Rotation by radians about axis (normalised here). */
SK_API sk_quat sk_quat_from_axis_angle(sk_vec3 axis, float radians);
SK_API sk_quat sk_quat_mul(sk_quat a, sk_quat b);       /* a then... : rotates by b first, then a */
/* The inverse rotation: conjugate / |q|^2 (identity for a zero quaternion). */
SK_API sk_quat sk_quat_inverse(sk_quat q);
/* |q|. */
SK_API float sk_quat_length(sk_quat q);
SK_API sk_quat sk_quat_normalize(sk_quat q);            /* zero quaternion gives identity */
/* v rotated by q (a unit quaternion). */
SK_API sk_vec3 sk_quat_rotate(sk_quat q, sk_vec3 v);
/* Spherical linear interpolation on the shortest arc (sign of b flipped when
 * dot < 0); falls back to nlerp when the angle is tiny. t outside [0, 1]
 * extrapolates along the arc; a NaN t counts as 0. Result is unit. */
SK_API sk_quat sk_quat_slerp(sk_quat a, sk_quat b, float t);
/* Normalised linear interpolation on the shortest arc. */
SK_API sk_quat sk_quat_nlerp(sk_quat a, sk_quat b, float t);

/* Yaw of a rotation about +Y: atan2 of the rotated +Z axis. */
SK_API float sk_quat_yaw(sk_quat q);

/* The identity matrix. */
SK_API sk_mat4 sk_mat4_identity(void);
SK_API sk_mat4 sk_mat4_mul(const sk_mat4 *a, const sk_mat4 *b); /* a * b */
SK_API sk_mat4 sk_mat4_from_transform(const sk_transform *x);   /* T * R * S */
/* General 4x4 inverse; returns false (and identity) when singular. */
SK_API bool sk_mat4_invert(const sk_mat4 *m, sk_mat4 *out);
/* Inverse of an affine matrix (bottom row 0,0,0,1); false when singular. */
SK_API bool sk_mat4_invert_affine(const sk_mat4 *m, sk_mat4 *out);
/* Decomposes an affine matrix into TRS. A negative determinant puts the
 * reflection into scale.x. Returns false if the matrix has a zero scale or is
 * not affine; out then holds the best effort. */
SK_API bool sk_mat4_decompose(const sk_mat4 *m, sk_transform *out);
/* m x (p, 1): a point, translated. */
SK_API sk_vec3 sk_mat4_transform_point(const sk_mat4 *m, sk_vec3 p);
/* m x (d, 0): a direction, rotated and scaled, not translated. */
SK_API sk_vec3 sk_mat4_transform_dir(const sk_mat4 *m, sk_vec3 d);

/* Zero translation, identity rotation, unit scale. */
SK_API sk_transform sk_transform_identity(void);
/* parent * child as TRS (exact only without non-uniform scale + rotation shear). */
SK_API sk_transform sk_transform_mul(const sk_transform *parent, const sk_transform *child);

#ifdef __cplusplus
}
#endif
#endif
