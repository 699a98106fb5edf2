/* IK-only walking for N legs (locomotion/legged.h): the gait by phase
 * offsets, footholds by rays, the body from the feet's support plane, each
 * leg by the two-bone solver. docs/procedural.md ("More legs") says where
 * each rule comes from. */
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/ik/ik.h"
#include "skelanim/locomotion/legged.h"

#include <math.h>
#include <string.h>

#define LG_MOVE_SPEED 0.03f   /* m/s: slower is standing */
#define LG_MOVE_TURN 0.05f    /* rad/s */
#define LG_SMOOTH_V 0.1f      /* s: velocity and turn rate smoothing */
#define LG_BODY_W 14.0f       /* rad/s: the body's height and tilt springs */
#define LG_TARGET_V 4.0f      /* m/s: how fast a swinging foot's landing point may move */
#define LG_FLAT 0.01f         /* m: a foothold's ground within this of level (the step-edge rule) */
#define LG_REACH 0.97f        /* of the leg's length: the body is lowered so every foot is within */
#define LG_URGENT 0.8f       /* of a step: a planted foot this far from its rest place lifts out of turn */
#define LG_STRAIN 0.92f      /* of the leg's length: a planted foot this far from its hip lifts out of turn */
#define LG_RIDGE 0.02f        /* m^2: the plane fit's pull toward level (few or collinear feet) */

typedef struct lg_leg {
    uint32_t hip, knee, foot;
    float r, len;
    float strain_max;         /* hip to foot over the leg's length past which a planted foot lifts out of turn */
    sk_vec3 rest_c;           /* rest contact point, character space (origin under the body, on the ground) */
    sk_vec3 knee_side;        /* the knee's rest bend direction, character space (unit) */
    bool planted, have_tgt, pending;
    bool settled;             /* stepped to its rest place standing: where it landed is as near as the ground allows */
    float swing, wait;        /* swing progress; how long a lift has waited (s) */
    sk_vec3 pos, nrm;         /* contact (planted: fixed) */
    sk_vec3 from, from_n;     /* where the swing started */
    sk_vec3 tgt, tgt_n;       /* landing point (moved at a bounded speed) */
    sk_vec3 joint_prev;       /* the foot joint's world position last frame */
    bool reached;
    sk_foot_event ev;
} lg_leg;

struct sk_legged {
    sk_allocator alloc;
    size_t size;
    sk_legged_desc d;
    const sk_skeleton *skel;
    uint32_t J, body, n;
    lg_leg leg[SK_LEGGED_MAX_LEGS];
    sk_transform *loc;        /* scratch locals (J) */
    sk_mat4 *model;           /* J world matrices */
    bool model_valid, have_prev;
    sk_vec3 b0;               /* rest body joint position (model) */
    float g0, rest_h;         /* rest ground height (model) and the body's height over it */
    sk_quat body_rest_r;
    float step_len, step_h, fmin, fmax, tilt_max, tol;
    float phi;
    float px, pz, pyaw;
    sk_vec3 vel;
    float yaw_rate;
    float body_y, body_vy, pitch, pitch_v, roll, roll_v;
    sk_legged_state st;
};

static float fracf_(float x) { return x - floorf(x); }

uint32_t sk_legged_min_planted(const float *phase, uint32_t n, float duty) {
    if (!phase || n == 0 || n > SK_LEGGED_MAX_LEGS || !(duty > 0 && duty <= 1)) return 0;
    float b[2 * SK_LEGGED_MAX_LEGS];
    uint32_t nb = 0;
    for (uint32_t i = 0; i < n; i++) b[nb++] = fracf_(phase[i]), b[nb++] = fracf_(phase[i] + 1.0f - duty);
    for (uint32_t i = 1; i < nb; i++) /* sort the breakpoints */
        for (uint32_t k = i; k > 0 && b[k] < b[k - 1]; k--) {
            float t = b[k];
            b[k] = b[k - 1], b[k - 1] = t;
        }
    uint32_t best = n;
    for (uint32_t i = 0; i < nb; i++) { /* the count is constant between breakpoints: test each gap's middle */
        float lo = b[i], hi = i + 1 < nb ? b[i + 1] : b[0] + 1.0f;
        if (hi - lo < 1e-6f) continue;
        float phi = 0.5f * (lo + hi);
        uint32_t c = 0;
        for (uint32_t l = 0; l < n; l++) c += fracf_(phi - phase[l]) >= 1.0f - duty;
        if (c < best) best = c;
    }
    return best;
}

sk_result sk_legged_gait(sk_legged_gait_kind gait, uint32_t n, float *phase, float *duty, sk_error *err) {
    if (!phase || !duty) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged gait: NULL output");
    if (n < 2 || n > SK_LEGGED_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged gait: %u legs (2..%d)", n, SK_LEGGED_MAX_LEGS);
    uint32_t pairs = n / 2;
    if (gait == SK_LEGGED_GAIT_WAVE) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t k;
            if (i == 2 * pairs) k = 0; /* the odd leg at the back lifts first */
            else k = (n & 1u) + (i & 1u) * pairs + (pairs - 1 - i / 2);
            phase[i] = (float)k / (float)n;
        }
        *duty = 1.0f - 1.0f / (float)n + 0.05f;
        return SK_OK;
    }
    if (gait == SK_LEGGED_GAIT_ALTERNATE) {
        if (n & 1u)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged gait: the alternating gait needs an even count, not %u",
                                n);
        for (uint32_t i = 0; i < n; i++) phase[i] = 0.5f * (float)((i / 2 + (i & 1u)) & 1u);
        *duty = 0.6f;
        return SK_OK;
    }
    return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged gait: unknown gait %d", (int)gait);
}

static bool chain_ok(const sk_skeleton *s, const sk_legged_leg *l, uint32_t body) {
    uint32_t J = s->joint_count;
    if (l->hip < 0 || l->knee < 0 || l->foot < 0 || (uint32_t)l->hip >= J || (uint32_t)l->knee >= J ||
        (uint32_t)l->foot >= J)
        return false;
    if (s->parents[l->knee] != l->hip || s->parents[l->foot] != l->knee) return false;
    for (int32_t j = l->hip; j >= 0; j = s->parents[j]) /* the hip hangs from the body */
        if ((uint32_t)j == body) return (uint32_t)l->hip != body;
    return false;
}

static sk_vec3 yaw_rot(float yaw, sk_vec3 v) {
    float c = cosf(yaw), s = sinf(yaw);
    return sk_vec3_make(c * v.x + s * v.z, v.y, -s * v.x + c * v.z);
}

static bool ground(sk_legged *W, float x, float z, float y_ref, sk_terrain_hit *h) {
    W->st.rays++;
    if (!W->d.terrain.raycast) {
        h->point = sk_vec3_make(x, 0, z), h->normal = sk_vec3_make(0, 1, 0), h->distance = 0;
        return true;
    }
    return sk_terrain_height(&W->d.terrain, x, z, y_ref, 50.0f, h);
}

sk_result sk_legged_create(const sk_legged_desc *desc, const sk_allocator *alloc, sk_legged **out, sk_error *err) {
    if (out) *out = NULL;
    if (!desc || !out || !desc->skeleton)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: NULL description, skeleton or output");
    const sk_skeleton *s = desc->skeleton;
    uint32_t J = s->joint_count, n = desc->leg_count;
    if (n < 2 || n > SK_LEGGED_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: leg_count %u (2..%d)", n, SK_LEGGED_MAX_LEGS);
    if (desc->body_joint < 0 || (uint32_t)desc->body_joint >= J || s->parents[desc->body_joint] >= 0)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: body_joint %d is not a root joint of the skeleton",
                            (int)desc->body_joint);
    uint32_t body = (uint32_t)desc->body_joint;
    for (uint32_t l = 0; l < n; l++) {
        if (!chain_ok(s, &desc->legs[l], body))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "legged: leg %u: hip, knee, foot must be a parent chain hanging from the body joint", l);
        if (!isfinite(desc->legs[l].foot_radius) || desc->legs[l].foot_radius < 0 || desc->legs[l].foot_radius > 10)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: leg %u: foot_radius must be finite, 0..10", l);
        for (uint32_t k = 0; k < l; k++)
            if (desc->legs[k].foot == desc->legs[l].foot || desc->legs[k].hip == desc->legs[l].hip)
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: legs %u and %u share joints", k, l);
        if (!(desc->phase[l] >= 0 && desc->phase[l] < 1))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: leg %u: phase %g outside [0, 1)", l,
                                (double)desc->phase[l]);
    }
    if (!(desc->duty >= 0.5f && desc->duty <= 0.95f))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: duty %g outside 0.5..0.95", (double)desc->duty);
    const float opts[] = {desc->step_length, desc->step_height, desc->min_frequency, desc->max_frequency,
                          desc->max_tilt};
    for (size_t i = 0; i < SK_ARRAY_COUNT(opts); i++)
        if (!isfinite(opts[i]) || opts[i] < 0 || opts[i] > 100)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: gait options must be finite, 0..100");
    if (desc->max_tilt > 1.2f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: max_tilt %g above 1.2 rad", (double)desc->max_tilt);
    size_t size = sizeof(sk_legged) + (size_t)J * (sizeof(sk_transform) + sizeof(sk_mat4)) + 32;
    const sk_allocator *al = sk_allocator_or_default(alloc);
    char *mem = sk_alloc(al, size);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "legged: out of memory");
    sk_legged *W = (sk_legged *)mem;
    W->alloc = *al, W->size = size, W->d = *desc, W->skel = s, W->J = J, W->body = body, W->n = n;
    uintptr_t p = ((uintptr_t)(W + 1) + 15u) & ~(uintptr_t)15u;
    W->model = (sk_mat4 *)p;
    W->loc = (sk_transform *)(W->model + J);
    /* the rest pose's model matrices: the legs' lengths and rest places */
    for (uint32_t j = 0; j < J; j++) W->loc[j] = s->rest ? s->rest[j] : sk_transform_identity();
    sk_mat4 id = sk_mat4_identity();
    sk_local_to_model_kernel(s, W->loc, &id, 0, J, NULL, W->model);
    W->b0 = skm_mat4_pos(&W->model[body]);
    W->body_rest_r = W->loc[body].r;
    float g = 0, longest = 0;
    for (uint32_t l = 0; l < n; l++) {
        lg_leg *L = &W->leg[l];
        L->hip = (uint32_t)desc->legs[l].hip, L->knee = (uint32_t)desc->legs[l].knee, L->foot = (uint32_t)desc->legs[l].foot;
        L->r = desc->legs[l].foot_radius;
        sk_vec3 h = skm_mat4_pos(&W->model[L->hip]), k = skm_mat4_pos(&W->model[L->knee]),
                f = skm_mat4_pos(&W->model[L->foot]);
        L->len = skm_vec3_len(sk_vec3_sub(k, h)) + skm_vec3_len(sk_vec3_sub(f, k));
        sk_vec3 axis = sk_vec3_sub(f, h);
        L->knee_side = skm_vec3_unit(skm_vec3_reject(sk_vec3_sub(k, h), skm_vec3_unit(axis)));
        if (!(L->len > 1e-4f) || skm_vec3_is_zero(L->knee_side)) {
            sk_free(al, W, size);
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "legged: leg %u: its rest pose must have length and a bent knee (the bend's side)", l);
        }
        g += f.y - L->r;
        L->strain_max = fminf(0.96f, fmaxf(LG_STRAIN, skm_vec3_len(axis) / L->len + 0.02f));
        if (L->len > longest) longest = L->len;
    }
    W->g0 = g / (float)n;
    W->rest_h = W->b0.y - W->g0;
    if (!(W->rest_h > 0)) {
        sk_free(al, W, size);
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged: the body joint must stand above the feet at rest");
    }
    for (uint32_t l = 0; l < n; l++) {
        lg_leg *L = &W->leg[l];
        sk_vec3 f = skm_mat4_pos(&W->model[L->foot]);
        L->rest_c = sk_vec3_make(f.x - W->b0.x, f.y - L->r - W->g0, f.z - W->b0.z);
    }
    /* the default step: 0.7 of the longest leg, shorter where a foot's rest
     * place leaves less room within the leg's reach (legs spread wide) */
    float room = longest;
    for (uint32_t l = 0; l < n; l++) {
        const lg_leg *L = &W->leg[l];
        sk_vec3 h = skm_mat4_pos(&W->model[L->hip]), f = skm_mat4_pos(&W->model[L->foot]);
        float dy = h.y - f.y, R = LG_REACH * L->len, across = hypotf(f.x - h.x, f.z - h.z);
        float m = (R > dy ? sqrtf(R * R - dy * dy) : 0.0f) - across;
        if (m < room) room = m;
    }
    W->step_len = desc->step_length > 0 ? desc->step_length : fminf(0.7f * longest, fmaxf(1.2f * room, 0.2f * longest));
    W->step_h = desc->step_height > 0 ? desc->step_height : 0.3f * longest;
    W->fmin = desc->min_frequency > 0 ? desc->min_frequency : 0.8f;
    W->fmax = desc->max_frequency > 0 ? desc->max_frequency : 3.5f;
    if (W->fmax < W->fmin) W->fmax = W->fmin;
    W->tilt_max = desc->max_tilt > 0 ? desc->max_tilt : 0.5f;
    W->tol = 0.05f * W->step_len;
    W->st.leg_count = n;
    W->st.rest_height = W->rest_h;
    W->st.min_planted = sk_legged_min_planted(desc->phase, n, desc->duty);
    W->st.root = sk_mat4_identity();
    *out = W;
    return SK_OK;
}

void sk_legged_destroy(sk_legged *W) {
    if (W) sk_free(&W->alloc, W, W->size);
}

const sk_legged_state *sk_legged_get_state(const sk_legged *W) { return W ? &W->st : NULL; }
const sk_mat4 *sk_legged_model(const sk_legged *W) { return W && W->model_valid ? W->model : NULL; }

/* The leg's rest place for the body at (x, z) facing yaw, on the ground. */
static void rest_place(sk_legged *W, const lg_leg *L, float x, float z, float yaw, float y_ref, sk_vec3 *p,
                       sk_vec3 *nrm) {
    sk_vec3 c = yaw_rot(yaw, L->rest_c);
    sk_terrain_hit h;
    *p = sk_vec3_make(x + c.x, y_ref, z + c.z);
    *nrm = sk_vec3_make(0, 1, 0);
    if (ground(W, p->x, p->z, y_ref + 2.0f * L->len, &h)) p->y = h.point.y, *nrm = h.normal;
}

/* The support plane y = h + gl a + gf b over the body's lateral (a) and
 * forward (b) axes, least squares over the feet's points (ridge toward
 * level); *h at the body's point. */
static void support_plane(const sk_legged *W, float x, float z, float yaw, float *h, float *gl, float *gf) {
    float c = cosf(yaw), s = sinf(yaw);
    double S[3][3] = {{0}}, R[3] = {0};
    for (uint32_t l = 0; l < W->n; l++) {
        const lg_leg *L = &W->leg[l];
        sk_vec3 p = L->planted ? L->pos : L->tgt;
        double dx = p.x - x, dz = p.z - z, a = c * dx - s * dz, b = s * dx + c * dz, v[3] = {1, a, b};
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < 3; k++) S[i][k] += v[i] * v[k];
            R[i] += v[i] * p.y;
        }
    }
    S[1][1] += LG_RIDGE, S[2][2] += LG_RIDGE;
    double det = S[0][0] * (S[1][1] * S[2][2] - S[1][2] * S[2][1]) - S[0][1] * (S[1][0] * S[2][2] - S[1][2] * S[2][0]) +
                 S[0][2] * (S[1][0] * S[2][1] - S[1][1] * S[2][0]);
    double x0 = 0, x1 = 0, x2 = 0;
    if (fabs(det) > 1e-12) {
        x0 = (R[0] * (S[1][1] * S[2][2] - S[1][2] * S[2][1]) - S[0][1] * (R[1] * S[2][2] - S[1][2] * R[2]) +
              S[0][2] * (R[1] * S[2][1] - S[1][1] * R[2])) / det;
        x1 = (S[0][0] * (R[1] * S[2][2] - S[1][2] * R[2]) - R[0] * (S[1][0] * S[2][2] - S[1][2] * S[2][0]) +
              S[0][2] * (S[1][0] * R[2] - R[1] * S[2][0])) / det;
        x2 = (S[0][0] * (S[1][1] * R[2] - R[1] * S[2][1]) - S[0][1] * (S[1][0] * R[2] - R[1] * S[2][0]) +
              R[0] * (S[1][0] * S[2][1] - S[1][1] * S[2][0])) / det;
    } else {
        x0 = R[0] / (S[0][0] > 0 ? S[0][0] : 1);
    }
    *h = (float)x0, *gl = (float)x1, *gf = (float)x2;
}

static void spring(float *x, float *v, float target, float w, float dt) {
    /* critically damped, exact for a constant target over dt */
    float d = *x - target, e = expf(-w * dt), t = (*v + w * d) * dt;
    *x = target + (d + t) * e;
    *v = (*v - w * t) * e;
}

static sk_result set_body(sk_legged *W, float x, float z, float yaw, bool snap, float dt) {
    float h, gl, gf;
    support_plane(W, x, z, yaw, &h, &gl, &gf);
    float pitch = skm_clampf(atanf(gf), -W->tilt_max, W->tilt_max), roll = skm_clampf(atanf(gl), -W->tilt_max, W->tilt_max);
    float by = h + W->rest_h;
    if (snap) {
        W->body_y = by, W->pitch = pitch, W->roll = roll;
        W->body_vy = W->pitch_v = W->roll_v = 0;
    } else {
        spring(&W->body_y, &W->body_vy, by, LG_BODY_W, dt);
        spring(&W->pitch, &W->pitch_v, pitch, LG_BODY_W, dt);
        spring(&W->roll, &W->roll_v, roll, LG_BODY_W, dt);
    }
    W->st.position = sk_vec3_make(x, h, z);
    return SK_OK;
}

/* The root (character frame) and the body joint's local transform from the
 * body's state; the world matrices of the rest pose under it. */
static void pose_body(sk_legged *W, float x, float z, float yaw) {
    float yg = W->st.position.y;
    sk_quat qy = skm_quat_rot_y(yaw);
    sk_vec3 off = yaw_rot(yaw, sk_vec3_make(-W->b0.x, -W->g0, -W->b0.z));
    sk_transform rt = {sk_vec3_make(x + off.x, yg + off.y, z + off.z), qy, sk_vec3_make(1, 1, 1)};
    W->st.root = sk_mat4_from_transform(&rt);
    for (uint32_t j = 0; j < W->J; j++) W->loc[j] = W->skel->rest ? W->skel->rest[j] : sk_transform_identity();
    sk_transform *b = &W->loc[W->body];
    b->r = skm_quat_normalize(skm_quat_mul(skm_quat_mul(skm_quat_rot_x(-W->pitch), skm_quat_rot_z(W->roll)), W->body_rest_r));
    b->t = sk_vec3_make(W->b0.x, W->g0 + W->body_y - yg, W->b0.z);
    sk_local_to_model_kernel(W->skel, W->loc, &W->st.root, 0, W->J, NULL, W->model);
}

/* Where the foot joint goes: its contact point raised by the radius along n. */
static sk_vec3 joint_at(const lg_leg *L, sk_vec3 contact, sk_vec3 n) { return sk_vec3_add(contact, sk_vec3_scale(n, L->r)); }

/* Lowers the body until every foot is within reach of its hip. */
static void reach(sk_legged *W, const sk_vec3 *goal, float x, float z, float yaw) {
    float down = 0;
    for (uint32_t l = 0; l < W->n; l++) {
        const lg_leg *L = &W->leg[l];
        sk_vec3 hp = skm_mat4_pos(&W->model[L->hip]), d = sk_vec3_sub(hp, goal[l]);
        float R = LG_REACH * L->len, dh2 = d.x * d.x + d.z * d.z;
        if (d.y * d.y + dh2 <= R * R || dh2 >= R * R) continue; /* within reach, or out of it at any height */
        float s = d.y - sqrtf(R * R - dh2);
        if (s > down) down = s;
    }
    /* never below half the rest height over the support plane: a leg that
     * cannot reach then falls short (state.feet[].reached) */
    float floor_y = W->st.position.y + 0.5f * W->rest_h;
    if (W->body_y - down < floor_y) down = W->body_y - floor_y;
    if (down > 0) {
        W->body_y -= down;
        if (W->body_vy > 0) W->body_vy = 0;
        pose_body(W, x, z, yaw);
    }
}

static void solve_legs(sk_legged *W, const sk_vec3 *goal) {
    sk_quat corr[SK_LEGGED_MAX_LEGS][2];
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        sk_transform th, tk, tf;
        sk_mat4_decompose(&W->model[L->hip], &th);
        sk_mat4_decompose(&W->model[L->knee], &tk);
        sk_mat4_decompose(&W->model[L->foot], &tf);
        sk_ik_target t = {0};
        t.position = goal[l];
        t.has_pole = true;
        /* the knee's rest side (character space) turned with the body's tilt and the root */
        sk_quat bt = skm_quat_mul(skm_quat_rot_x(-W->pitch), skm_quat_rot_z(W->roll));
        sk_vec3 side = sk_mat4_transform_dir(&W->st.root, skm_quat_rotate(bt, L->knee_side));
        t.pole = sk_vec3_add(tk.t, sk_vec3_scale(skm_vec3_unit(side), L->len));
        sk_ik_options o = {0};
        o.solver = SK_IK_TWO_BONE;
        bool ok = sk_ik_two_bone(&th, &tk, &tf, &t, &o, &corr[l][0], &corr[l][1], &L->reached);
        if (!ok) corr[l][0] = corr[l][1] = sk_quat_identity(), L->reached = false;
    }
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        W->loc[L->hip].r = skm_quat_normalize(skm_quat_mul(W->loc[L->hip].r, corr[l][0]));
        W->loc[L->knee].r = skm_quat_normalize(skm_quat_mul(W->loc[L->knee].r, corr[l][1]));
    }
    sk_local_to_model_kernel(W->skel, W->loc, &W->st.root, 0, W->J, NULL, W->model);
}

sk_result sk_legged_reset(sk_legged *W, float x, float z, float yaw, sk_error *err) {
    if (!W) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged reset: NULL walker");
    if (!isfinite(x) || !isfinite(z) || !isfinite(yaw) || fabsf(x) > 1e6f || fabsf(z) > 1e6f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged reset: non-finite or huge position or yaw");
    yaw = skm_wrap_angle(yaw);
    W->st.rays = 0;
    sk_terrain_hit h;
    float y_ref = ground(W, x, z, 1e4f, &h) ? h.point.y : 0.0f;
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        rest_place(W, L, x, z, yaw, y_ref + W->rest_h, &L->pos, &L->nrm);
        L->tgt = L->from = L->pos, L->tgt_n = L->from_n = L->nrm;
        L->planted = true, L->have_tgt = false, L->pending = false, L->settled = true, L->swing = 0, L->reached = true;
        memset(&L->ev, 0, sizeof L->ev);
    }
    /* just before the cycle's start: the first step lifts the legs whose phase is 0 */
    W->phi = 1.0f - 1e-4f, W->px = x, W->pz = z, W->pyaw = yaw, W->vel = sk_vec3_make(0, 0, 0), W->yaw_rate = 0;
    W->have_prev = false;
    W->model_valid = false;
    W->st.time = 0, W->st.walking = false, W->st.phase = 0, W->st.frequency = 0, W->st.yaw = yaw;
    set_body(W, x, z, yaw, true, 0);
    return SK_OK;
}

/* A foothold near p: the ground there, moved along the body's forward
 * axis onto level ground when p is on a step's edge. */
static sk_vec3 up_normal(sk_vec3 n) { return n.y > 0.5f ? n : sk_vec3_make(0, 1, 0); }

static void foothold(sk_legged *W, const lg_leg *L, sk_vec3 p, float yaw, float y_ref, sk_vec3 *out, sk_vec3 *nrm) {
    /* the ball's footprint, a little wider: its ground must be one plane (level or a ramp) */
    float probe = 1.5f * (L->r > 0.02f ? L->r : 0.02f);
    sk_vec3 f = yaw_rot(yaw, sk_vec3_make(0, 0, 1)), s = yaw_rot(yaw, sk_vec3_make(1, 0, 0));
    static const float shifts[][2] = {{0, 0},      {0.04f, 0},  {-0.04f, 0}, {0.08f, 0}, {-0.08f, 0}, {0, 0.04f},
                                      {0, -0.04f}, {0.12f, 0},  {-0.12f, 0}, {0, 0.08f}, {0, -0.08f}};
    sk_terrain_hit h0 = {0};
    bool have0 = false;
    for (size_t k = 0; k < SK_ARRAY_COUNT(shifts); k++) {
        sk_vec3 q = sk_vec3_add(p, sk_vec3_add(sk_vec3_scale(f, shifts[k][0]), sk_vec3_scale(s, shifts[k][1])));
        sk_terrain_hit hc;
        if (!ground(W, q.x, q.z, y_ref, &hc)) continue;
        if (!have0) h0 = hc, have0 = true;
        bool level = true;
        for (int axis = 0; axis < 2 && level; axis++) {
            sk_vec3 d = sk_vec3_scale(axis ? s : f, probe);
            sk_terrain_hit ha, hb;
            level = ground(W, q.x + d.x, q.z + d.z, y_ref, &ha) && ground(W, q.x - d.x, q.z - d.z, y_ref, &hb) &&
                    fabsf((ha.point.y - hc.point.y) - (hc.point.y - hb.point.y)) <= LG_FLAT;
        }
        if (level) {
            *out = hc.point, *nrm = up_normal(hc.normal);
            return;
        }
    }
    if (have0) *out = h0.point, *nrm = up_normal(h0.normal);
    else *out = p, *nrm = sk_vec3_make(0, 1, 0);
}

static float ground_between(sk_legged *W, sk_vec3 a, sk_vec3 b, float y_ref) {
    float top = a.y > b.y ? a.y : b.y;
    for (int k = 1; k <= 3; k++) {
        sk_vec3 q = skm_vec3_lerp(a, b, 0.25f * (float)k);
        sk_terrain_hit h;
        if (ground(W, q.x, q.z, y_ref, &h) && h.point.y > top) top = h.point.y;
    }
    return top;
}

sk_result sk_legged_update(sk_legged *W, double dt, float x, float z, float yaw, sk_pose *pose, sk_error *err) {
    if (!W) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged update: NULL walker");
    if (!(dt > 0 && dt <= 1) || !isfinite(x) || !isfinite(z) || !isfinite(yaw) || fabsf(x) > 1e6f || fabsf(z) > 1e6f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged update: dt must be in (0, 1] s, position and yaw finite");
    if (!pose || !pose->local || pose->joint_count != W->J)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "legged update: the pose must have the skeleton's %u joints", W->J);
    float fdt = (float)dt;
    yaw = skm_wrap_angle(yaw);
    W->st.rays = 0;
    W->st.time += dt;
    /* the body's velocity and turn rate, smoothed */
    float k = 1.0f - expf(-fdt / LG_SMOOTH_V);
    sk_vec3 vr = sk_vec3_make((x - W->px) / fdt, 0, (z - W->pz) / fdt);
    float wr = skm_wrap_angle(yaw - W->pyaw) / fdt;
    W->vel = sk_vec3_add(W->vel, sk_vec3_scale(sk_vec3_sub(vr, W->vel), k));
    W->yaw_rate += (wr - W->yaw_rate) * k;
    W->px = x, W->pz = z, W->pyaw = yaw;
    float speed = hypotf(W->vel.x, W->vel.z);
    bool moving = speed > LG_MOVE_SPEED || fabsf(W->yaw_rate) > LG_MOVE_TURN;
    float y_ref = W->body_y + W->rest_h; /* rays from above the body */
    /* each foot's distance from its rest place */
    bool need[SK_LEGGED_MAX_LEGS], any_swing = false, any_need = false;
    float stretch[SK_LEGGED_MAX_LEGS], strain[SK_LEGGED_MAX_LEGS];
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        sk_vec3 c = yaw_rot(yaw, L->rest_c);
        stretch[l] = hypotf(L->pos.x - (x + c.x), L->pos.z - (z + c.z));
        strain[l] = W->have_prev ? skm_vec3_len(sk_vec3_sub(skm_mat4_pos(&W->model[L->hip]), joint_at(L, L->pos, L->nrm))) /
                                       L->len - L->strain_max
                                 : -1.0f;
        if (moving) L->settled = false;
        need[l] = !L->settled && stretch[l] > W->tol;
        any_need |= need[l];
        any_swing |= !L->planted;
    }
    float duty = W->d.duty, f = 0;
    bool walking = moving || any_need || any_swing;
    if (walking) f = skm_clampf(speed * duty / W->step_len, W->fmin, W->fmax);
    float adv = f * fdt;
    if (adv > 0.2f) adv = 0.2f; /* a long frame: the gait slows rather than skipping a swing */
    float phi0 = W->phi, phi1 = phi0 + adv;
    W->phi = fracf_(phi1);
    float swing_len = 1.0f - duty;
    /* lifts: a leg whose swing window opens (pending until it closes), or
     * one stretched past its reach (urgent); either only while the feet
     * left down are at least the gait's minimum */
    uint32_t down = 0;
    for (uint32_t l = 0; l < W->n; l++) down += W->leg[l].planted;
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        memset(&L->ev, 0, sizeof L->ev);
        float u1 = phi1 - W->d.phase[l], u0 = phi0 - W->d.phase[l];
        if (walking && floorf(u1) > floorf(u0) && L->planted && (moving || need[l]) && !L->pending)
            L->pending = true, L->wait = 0;
        if (L->pending && !(moving || need[l])) L->pending = false; /* standing: no step needed */
        if (L->pending) L->wait += fdt;
        if (!L->pending && L->planted && (moving || !L->settled) &&
            (stretch[l] > LG_URGENT * W->step_len || strain[l] > 0))
            L->pending = true, L->wait = 0;
    }
    /* the longest waiting first: a lift held back by the minimum is never starved */
    for (;;) {
        int best = -1;
        for (uint32_t l = 0; l < W->n; l++)
            if (W->leg[l].planted && W->leg[l].pending && (best < 0 || W->leg[l].wait > W->leg[best].wait)) best = (int)l;
        if (best < 0 || down <= W->st.min_planted) break;
        lg_leg *L = &W->leg[best];
        down--;
        L->planted = false, L->pending = false, L->have_tgt = false, L->swing = 0;
        L->from = L->pos, L->from_n = L->nrm;
        L->ev.kind = SK_FOOT_EVENT_UP, L->ev.position = L->pos, L->ev.normal = L->nrm;
    }
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        if (L->planted) continue;
        /* the swing's own progress: a late or early lift keeps its length */
        L->swing += adv / swing_len;
        bool land = L->swing >= 1.0f;
        if (land) L->swing = 1.0f;
        /* where it lands: the body's place half a stance after touch-down */
        float fr = f > 0 ? f : W->fmin;
        float t_land = (1.0f - L->swing) * swing_len / fr, t_mid = t_land + duty / (2 * fr);
        sk_vec3 ahead = sk_vec3_scale(W->vel, t_mid);
        float al = skm_vec3_len(ahead), amax = 1.2f * W->step_len;
        if (al > amax) ahead = sk_vec3_scale(ahead, amax / al);
        float yaw_mid = yaw + skm_clampf(W->yaw_rate * t_mid, -1.0f, 1.0f);
        sk_vec3 c = yaw_rot(yaw_mid, L->rest_c), want = sk_vec3_make(x + ahead.x + c.x, y_ref, z + ahead.z + c.z);
        if (!L->have_tgt) {
            L->tgt = want;
            L->have_tgt = true;
        } else {
            sk_vec3 d = sk_vec3_make(want.x - L->tgt.x, 0, want.z - L->tgt.z);
            float dl = skm_vec3_len(d), dm = LG_TARGET_V * fdt;
            if (dl > dm) d = sk_vec3_scale(d, dm / dl);
            L->tgt = sk_vec3_make(L->tgt.x + d.x, y_ref, L->tgt.z + d.z);
        }
        foothold(W, L, L->tgt, yaw_mid, y_ref, &L->tgt, &L->tgt_n);
        if (land) {
            L->planted = true, L->swing = 0;
            L->pos = L->tgt, L->nrm = L->tgt_n;
            L->settled = !moving;
            L->ev.kind = SK_FOOT_EVENT_DOWN, L->ev.position = L->pos, L->ev.normal = L->nrm;
        }
    }
    W->st.walking = walking;
    W->st.phase = W->phi;
    W->st.frequency = f;
    set_body(W, x, z, yaw, !W->have_prev, fdt);
    pose_body(W, x, z, yaw);
    /* the feet: planted where they stand, swinging along their arcs */
    sk_vec3 goal[SK_LEGGED_MAX_LEGS];
    uint32_t planted = 0;
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        if (L->planted) {
            goal[l] = joint_at(L, L->pos, L->nrm);
            planted++;
            continue;
        }
        float s = L->swing, top = ground_between(W, L->from, L->tgt, y_ref);
        float hz = s <= 0.15f ? 0 : s >= 0.85f ? 1 : (s - 0.15f) / 0.7f;
        hz = hz * hz * (3 - 2 * hz);
        float apex = top + W->step_h, sn = sinf(SKM_PI * s);
        float y = s < 0.5f ? L->from.y + (apex - L->from.y) * sn : L->tgt.y + (apex - L->tgt.y) * sn;
        sk_vec3 c = sk_vec3_make(L->from.x + (L->tgt.x - L->from.x) * hz, y, L->from.z + (L->tgt.z - L->from.z) * hz);
        sk_vec3 nrm = skm_vec3_unit(skm_vec3_lerp(L->from_n, L->tgt_n, hz));
        L->pos = c, L->nrm = nrm;
        goal[l] = joint_at(L, c, nrm);
    }
    reach(W, goal, x, z, yaw);
    solve_legs(W, goal);
    /* outputs */
    sk_terrain_hit hb;
    sk_vec3 bp = skm_mat4_pos(&W->model[W->body]);
    W->st.body_height = bp.y;
    W->st.clearance = ground(W, bp.x, bp.z, bp.y, &hb) ? bp.y - hb.point.y : bp.y - W->st.position.y;
    W->st.yaw = yaw, W->st.velocity = W->vel, W->st.pitch = W->pitch, W->st.roll = W->roll;
    W->st.planted = planted;
    for (uint32_t l = 0; l < W->n; l++) {
        lg_leg *L = &W->leg[l];
        sk_legged_foot *o = &W->st.feet[l];
        sk_vec3 jp = skm_mat4_pos(&W->model[L->foot]);
        if (L->ev.kind != SK_FOOT_EVENT_NONE) {
            float v = W->have_prev ? skm_vec3_len(sk_vec3_sub(jp, L->joint_prev)) / fdt : 0.0f;
            L->ev.speed = isfinite(v) ? v : 0.0f;
        }
        L->joint_prev = jp;
        /* the foot as the IK placed it (a leg that fell short shows it) */
        o->contact = sk_vec3_sub(jp, sk_vec3_scale(L->nrm, L->r));
        o->normal = L->nrm, o->target = L->planted ? L->pos : L->tgt;
        o->planted = L->planted, o->swing = L->swing, o->reached = L->reached, o->event = L->ev;
    }
    W->have_prev = true;
    memcpy(pose->local, W->loc, (size_t)W->J * sizeof *W->loc);
    /* the pose out is in character space: the model matrices are world (root x model) */
    W->model_valid = true;
    return SK_OK;
}
