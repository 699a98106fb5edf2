/* Root motion: the root joint's horizontal translation and yaw, taken out of
 * the pose and delivered as per-update deltas (see player.h). Motion is a 2D
 * rigid transform in the XZ plane (glTF: +Y up). F(t) is the root's frame at
 * clip time t, S(t) = F(0)^-1 F(t) the motion since the clip start, L = S(d)
 * one whole loop. A REPEAT player at cycle c and position t has moved
 * L^c S(t); the delta between two player states is S(t0)^-1 L^(c1-c0) S(t1). */
#include "core/math_inline.h"
#include "skelanim/anim/rootmotion.h"
#include "skelanim/anim/player.h"

#include <math.h>

struct sk_root_motion {
    sk_allocator alloc;
    uint32_t joint;
    double duration;
    sk_skeleton *skel1; /* one joint: the root, with its rest transform */
    sk_clip *clip1;     /* the root's translation/rotation tracks, retargeted to joint 0 */
    sk_root_delta f0;   /* F(0) */
    sk_root_delta loop; /* L = S(d) */
    sk_vec3 t0;         /* root translation at t = 0 */
    float yaw0;
};

static sk_vec3 rot_y(float yaw, sk_vec3 v) {
    float c = cosf(yaw), s = sinf(yaw);
    return sk_vec3_make(v.x * c + v.z * s, 0.0f, -v.x * s + v.z * c);
}


sk_root_delta sk_root_delta_identity(void) {
    sk_root_delta d = {{0, 0, 0}, 0.0f};
    return d;
}

sk_root_delta sk_root_delta_compose(sk_root_delta a, sk_root_delta b) {
    sk_root_delta r;
    r.translation = sk_vec3_add(a.translation, rot_y(a.yaw, b.translation));
    r.translation.y = 0.0f;
    r.yaw = a.yaw + b.yaw;
    return r;
}

sk_root_delta sk_root_delta_inverse(sk_root_delta a) {
    sk_root_delta r;
    r.yaw = -a.yaw;
    r.translation = sk_vec3_scale(rot_y(-a.yaw, a.translation), -1.0f);
    r.translation.y = 0.0f;
    return r;
}

sk_root_delta sk_root_delta_blend(const sk_root_delta *d, const float *w, uint32_t n) {
    sk_root_delta r = sk_root_delta_identity();
    double sw = 0.0, x = 0.0, z = 0.0, y = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        if (!(w[i] > 0.0f)) continue;
        sw += w[i];
        x += (double)w[i] * d[i].translation.x;
        z += (double)w[i] * d[i].translation.z;
        y += (double)w[i] * d[i].yaw;
    }
    if (sw > 0.0) {
        r.translation = sk_vec3_make((float)(x / sw), 0.0f, (float)(z / sw));
        r.yaw = (float)(y / sw);
    }
    return r;
}

/* F(t): the root's horizontal frame at clip time t (t in [0, d]). */
static sk_root_delta frame_at(const sk_root_motion *rm, double t) {
    sk_transform x;
    sk_pose p = sk_pose_view(&x, 1, NULL, 0); /* the one-joint skeleton of the copied tracks */
    (void)sk_clip_sample(rm->clip1, rm->skel1, t, SK_LOOP_CLAMP, &p, NULL);
    sk_root_delta f;
    f.translation = sk_vec3_make(x.t.x, 0.0f, x.t.z);
    f.yaw = sk_quat_yaw(x.r);
    return f;
}

static sk_root_delta motion_since_start(const sk_root_motion *rm, double t) {
    sk_root_delta s = sk_root_delta_compose(sk_root_delta_inverse(rm->f0), frame_at(rm, t));
    s.yaw = skm_wrap_angle(s.yaw);
    return s;
}

sk_root_delta sk_root_motion_between(const sk_root_motion *rm, double a, double b) {
    return sk_root_delta_compose(sk_root_delta_inverse(motion_since_start(rm, a)), motion_since_start(rm, b));
}

/* L^k for a loop count given in double (a difference of two player cycle
 * counts, which the caller may have set to anything): clamped to +-2^53, so
 * the negation and the cast are defined and the loop ends after 54 rounds;
 * yaw is wrapped after each composition so it stays finite. */
static sk_root_delta loop_pow(sk_root_delta l, double kd) {
    sk_root_delta r = sk_root_delta_identity();
    if (!(kd == kd)) return r;
    if (kd < 0.0) {
        l = sk_root_delta_inverse(l);
        kd = -kd;
    }
    if (kd > SK_PLAYER_MAX_CYCLE) kd = SK_PLAYER_MAX_CYCLE;
    uint64_t k = (uint64_t)kd;
    while (k > 0) { /* exponentiation by squaring: a step over a million loops costs ~20 compositions */
        if (k & 1) {
            r = sk_root_delta_compose(r, l);
            r.yaw = skm_wrap_angle(r.yaw);
        }
        l = sk_root_delta_compose(l, l);
        l.yaw = skm_wrap_angle(l.yaw);
        k >>= 1;
    }
    return r;
}

sk_root_delta sk_root_motion_delta(const sk_root_motion *rm, const sk_player *a, const sk_player *b) {
    double ta = sk_player_clip_time(a), tb = sk_player_clip_time(b);
    if (a->loop != SK_LOOP_REPEAT || !(rm->duration > 0.0)) /* CLAMP; PING_PONG round trips net zero */
        return sk_root_motion_between(rm, ta, tb);
    sk_root_delta d = sk_root_delta_inverse(motion_since_start(rm, ta));
    d = sk_root_delta_compose(d, loop_pow(rm->loop, (double)b->cycle - (double)a->cycle));
    return sk_root_delta_compose(d, motion_since_start(rm, tb));
}

sk_result sk_root_motion_strip(const sk_root_motion *rm, sk_pose *pose, sk_error *err) {
    if (!rm || !pose || !pose->local || rm->joint >= pose->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_root_motion_strip: the pose has no joint %u",
                            rm ? rm->joint : 0u);
    sk_transform *x = &pose->local[rm->joint];
    x->t.x = rm->t0.x;
    x->t.z = rm->t0.z;
    float dy = rm->yaw0 - sk_quat_yaw(x->r);
    sk_quat q = sk_quat_make(0.0f, sinf(0.5f * dy), 0.0f, cosf(0.5f * dy));
    x->r = sk_quat_normalize(sk_quat_mul(q, x->r));
    return SK_OK;
}

uint32_t sk_root_motion_joint(const sk_root_motion *rm) { return rm->joint; }

void sk_root_motion_destroy(sk_root_motion *rm) {
    if (!rm) return;
    sk_clip_destroy(rm->clip1);
    sk_skeleton_destroy(rm->skel1);
    sk_allocator a = rm->alloc;
    sk_free(&a, rm, sizeof *rm);
}

sk_result sk_root_motion_create(const sk_clip *clip, const sk_skeleton *skel, uint32_t root, const sk_allocator *alloc,
                                sk_root_motion **out, sk_error *err) {
    if (!out || !clip || !skel) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_root_motion_create: NULL argument");
    *out = NULL;
    if (root >= skel->joint_count)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_root_motion_create: joint %u out of range (%u joints)", root,
                            skel->joint_count);
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_root_motion *rm = sk_alloc(a, sizeof *rm);
    if (!rm) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
    rm->alloc = *a;
    rm->joint = root;
    rm->duration = sk_clip_duration(clip);
    int32_t parent = -1;
    sk_skeleton_desc sd = {0};
    sd.joint_count = 1;
    sd.parents = &parent;
    sd.rest = &skel->rest[root];
    sk_result r = sk_skeleton_create(&sd, a, &rm->skel1, err);
    sk_clip_builder *b = NULL;
    if (r == SK_OK) r = sk_clip_builder_create("root", a, &b, err);
    float *times = NULL, *values = NULL;
    size_t cap_t = 0, cap_v = 0;
    for (uint32_t i = 0; r == SK_OK && i < sk_clip_track_count(clip); i++) {
        sk_track_info info;
        sk_clip_track_info(clip, i, &info);
        if (info.joint != root || (info.path != SK_PATH_TRANSLATION && info.path != SK_PATH_ROTATION)) continue;
        size_t nv = (size_t)info.key_count * info.width * (info.interpolation == SK_INTERP_CUBICSPLINE ? 3u : 1u);
        if (info.key_count > cap_t) {
            sk_free(a, times, cap_t * sizeof(float));
            cap_t = info.key_count;
            times = sk_alloc(a, cap_t * sizeof(float));
        }
        if (nv > cap_v) {
            sk_free(a, values, cap_v * sizeof(float));
            cap_v = nv;
            values = sk_alloc(a, cap_v * sizeof(float));
        }
        if (!times || !values) {
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        sk_clip_track_keys(clip, i, times, values);
        sk_track_desc td = {0};
        td.joint = 0;
        td.path = info.path;
        td.interpolation = info.interpolation;
        td.key_count = info.key_count;
        td.times = times;
        td.values = values;
        td.width = info.width;
        r = sk_clip_builder_add_track(b, &td, err);
    }
    sk_free(a, times, cap_t * sizeof(float));
    sk_free(a, values, cap_v * sizeof(float));
    if (r == SK_OK) {
        sk_clip_builder_set_duration(b, rm->duration);
        r = sk_clip_builder_finish(b, &rm->clip1, err);
        b = NULL;
    }
    if (b) sk_clip_builder_destroy(b);
    if (r != SK_OK) {
        sk_root_motion_destroy(rm);
        return r;
    }
    sk_transform x0;
    sk_pose p0 = sk_pose_view(&x0, 1, NULL, 0);
    (void)sk_clip_sample(rm->clip1, rm->skel1, 0.0, SK_LOOP_CLAMP, &p0, NULL);
    rm->t0 = x0.t;
    rm->yaw0 = sk_quat_yaw(x0.r);
    rm->f0 = frame_at(rm, 0.0);
    rm->loop = motion_since_start(rm, rm->duration);
    *out = rm;
    return SK_OK;
}
