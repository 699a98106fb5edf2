/* The semi-procedural locomotion runtime (locomotion/locomotor.h; seed 002
 * chapter 5, after Johansen 2009). Formula numbers are the seed's.
 *
 * Where the seed is silent or wrong, and what is done here:
 *   - (32) gives turnSpeed = characterVelocity . up, which is 0 for a
 *     character on the ground; the turn speed is the angular velocity about
 *     up (issue #10 says so too).
 *   - (41) repeats stepFromPosition; the height of the next footstep's
 *     tangent plane uses stepToPosition.
 *   - (35) maps the cycle time from foot-off to foot-strike; here the flight
 *     runs from foot-lift to foot-land, the times between which the foot is
 *     not planted, so the footbase is exactly on its footstep whenever the
 *     analysis says the foot is planted (no slide by construction), and the
 *     normalised trajectory's z is rescaled to run from exactly 0 at
 *     foot-lift to 1 at foot-land (its x and y relative to the straight line
 *     between their values there), so the foot leaves and meets the
 *     footsteps without a jump.
 *   - (46)-(47): characterDirection is taken as a unit vector, and the
 *     distance per cycle as the speed times the cycle duration actually used.
 *   - (48) uses strideTime, which the seed does not define; the leg's cycle
 *     time is used (the weight then runs from the previous footstep at
 *     cycle time 0 to the next at 1, as (49) needs).
 *   - (53)-(54): the lerp parameter is flightTimeArc.
 *   - The obstacle lift (39)-(44) follows the footsteps' tangent planes and
 *     cannot see a step between the footsteps (a stair riser the foot passes
 *     over). The terrain below the straight path between the footsteps is
 *     also sampled (6 points for the heel line and 6 for the toe line, once
 *     per pair of footsteps, again when one moves by more than 5 cm) and the
 *     sine arc is made high enough to pass every sample with 3 cm to spare;
 *     the larger of the two lifts is used.
 *   - §5.2.1 names the step-edge rule but gives no formula: when the toe's
 *     ray and the heel's do not hit one plane (the toe hit is more than
 *     1.5 cm off the plane through the heel hit with its normal, and the
 *     other way round), the edge between them is found by bisection (6
 *     rays) and the footstep moved forward until the heel is 2 cm past the
 *     edge or back until the toe is 2 cm before it, whichever is shorter; if
 *     the moved foot straddles an edge again the other move is tried, and if
 *     both fail the foot rests on the higher hit.
 *   - Speeds below the blended motion's own: steps get shorter and the
 *     cycle longer, the cycle duration scaled by sqrt(motion speed / speed)
 *     (at most 2x). Stopping: below idle_speed the phase runs on only while
 *     a foot is in the air, and stops when every foot is on the ground
 *     (foot-strike .. foot-off); the idle clip then fades in while the feet
 *     stay on their footsteps.
 *   - The hip adjustment (59)-(64) moves the body joint vertically; the
 *     spheres of Slika 19 are intersected with the vertical line through
 *     the hip (upper intersection); a leg whose target is out of the
 *     sphere's horizontal reach takes the hip at the target's height.
 *     (62) becomes desiredMin when minToAvg + minToMax is 0. The leg length
 *     is 0.999 x the rest length minus the soft-IK band, so the legs reach.
 *   - Captures (docs/locomotion.md, "Clips from captures on any character"):
 *     the heel and toe ground heights of (10) are weighted as the motions
 *     are; planted, the footbase stands at the lower of heel and toe, the
 *     sole is laid flat and its heading held at the stance's (faded in the
 *     flight, over FLAT_RAMP after foot-lift and before foot-land); from TOUCH_FROM to TOUCH_TO of
 *     the flight the footbase closes on its landing footstep across the
 *     ground, so the foot comes down onto it. */
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/anim/blend.h"
#include "skelanim/ik/ik.h"
#include "skelanim/locomotion/locomotor.h"
#include "footstep.h"

#include <math.h>
#include <string.h>

#define TURN_STEP_RATE 0.35f /* rad/s (20 degrees/s): turning faster than this in place steps */
#define CLEAR_SAMPLES 6
#define CLEAR_MARGIN 0.03f
#define BALANCE_ALPHA 20.0f
#define GUARD_MARGIN 0.005f
#define BOUND_SLACK 1e-4f /* the guard's test against the terrain's bound: more than float rounding (m) */
#define TOUCH_FROM 0.78f /* flight share from which the foot closes on its footstep */
#define TOUCH_TO 0.95f
#define FLAT_RAMP 0.05 /* cycle share over which a planted foot is laid flat */
#define LIFT_RATE 2.5f
#define HIP_RATE 2.0f
#define EARLY_DROP 0.3f /* a trailing planted leg that needs the hips lower than this x its length lifts (early_lift) */
#define LIFT_REACH 0.08f /* flight share after foot-lift over which a swinging leg still holds the hips as planted */
#define LAND_REACH 0.3f /* flight share before landing over which a swinging leg may lower the hips again */
#define LIFT_RECOVER 0.35f /* flight share over which a swinging leg's floor for hips lowered at foot-lift rises to 0 */
#define TO_RATE 3.0f
#define SLOPE_CADENCE 1.2f
#define SPREAD_CLIMB 0.1f /* the feet's spread along the motion climbs at most this x the leg on the slope ahead (step_spread) */
#define WALK_HOLD 1.2f /* the slowest motion of a direction alone up to this x its speed (walk_held) */
#define EDGE_HYSTERESIS 0.5f /* footstep.h, ground_probe.edge_hysteresis: of the foot's length */
#define CAST_REUSE 0.01f
#define CLEAR_REUSE 0.05f

typedef struct leg_rt {
    uint32_t hip, knee, ankle, tip_joint; /* tip_joint: toe or ankle */
    uint32_t hip_end, ankle_end;          /* the hip's and the ankle's subtrees end (sk_skeleton_subtree_end) */
    sk_vec3 heel_pt, toe_pt;
    float length;                        /* rest hip-knee + knee-ankle (m) */
    float heel_ground, toe_ground;       /* unweighted mean over the motions (the weights' fallback) */
    sk_footstep from, to;
    double prev_ct;
    /* ray cache for the prediction */
    bool cast_valid;
    sk_vec3 cast_heel;
    float cast_yaw;
    sk_footstep cast_step;
    /* clearance cache */
    bool clr_valid;
    sk_vec3 clr_from, clr_to;
    float clr_amp;
    float guard;                         /* swing lift from the per-frame guard (m) */
    float lift_prev;                     /* rate-limited swing lift (m); -1: on the ground */
    bool seen;                           /* a frame was adjusted since the reset (events compare with it) */
    sk_vec3 to_base;                     /* the base the next footstep was cast at */
    float to_yaw;
    int edge_pref;                       /* last step-edge move: +1 forward, -1 back, 0 none */
    bool ends_valid;                     /* fb_lift/fb_land hold the blend's trajectory ends */
    double kt[4];                        /* the blend's keytimes from stance: lift, off, strike, land (keytimes) */
    double early;                        /* the cycle time of a lift before foot-lift (early_lift), -1: none */
    bool air;                            /* in flight last frame (foot_target) */
    float off_lift;                      /* the hip offset when the foot lifted (m) */
    sk_vec3 fb_lift, fb_land;
    /* The foot's direction (the blend's foot_direction) held from the
     * second half of the flight to foot-lift: the blend's moves with the
     * weights (speeding up, slowing down), and with it the planted foot's
     * footbase (11) and heading. */
    sk_vec3 pdir;
    bool pdir_valid;
    sk_vec3 step_pos; /* the blend's stance position with its spread along the motion scaled (step_spread) */
} leg_rt;

struct sk_locomotor {
    sk_allocator alloc;
    size_t size;
    sk_locomotor_desc d;
    const sk_skeleton *skel;
    uint32_t J, n, legs;
    uint32_t body, body_end; /* the body joint and its subtree's end */
    sk_mat4 body_parent;    /* rest model matrix of the body's parent (identity at a root) */
    uint64_t moved_above;   /* bit i: motion i's clip animates a joint above the body (its parent's matrix
                               then comes from the sampled pose: a clip turned at its root, an armature
                               node with keys) */
    float max_up, max_down, soft, idle_speed, ground_tau, longest_leg;
    leg_rt leg[SK_MOTION_GROUP_MAX_LEGS];
    sk_motion_tracker tracker;
    sk_motion_blend blend;
    bool blend_valid;
    sk_vec3 blend_v;
    /* per frame */
    float cyaw, syaw;        /* cos, sin of the character's yaw */
    sk_quat qyaw;
    float *weights;          /* n */
    double *clip_times;      /* n */
    sk_vec3 *centers;        /* n: each motion's mean leg centre, horizontal (character space) */
    float *laid;             /* n x legs: each motion's foot length laid flat over its foot length (laid_length) */
    sk_transform *scratch;   /* (n + 1) x J: one pose per motion, one for idle */
    sk_blend_input *inputs;  /* n */
    sk_mat4 *model;          /* J world matrices (root: st.root) of the pose adjust works on and writes */
    bool model_valid;        /* model holds the last adjusted (or plain) pose's */
    double idle_time;
    bool external_group;  /* the caller's state machine sets st.moving (sk_locomotor_set_group_weight) */
    bool frozen;             /* standing: the phase does not advance */
    double cd_eff;
    double frame_dt;
    bool hip_valid;
    /* regular stairs ahead (stairs_cadence) */
    bool tread_probed;             /* looked for since the slope rose */
    sk_vec3 tread_from;            /* where they were last looked for (horizontal) */
    sk_vec3 tread_origin;          /* the foot of a riser (horizontal) */
    float tread_depth, tread_rise; /* m; depth 0: no stairs */
    float tread_n;                 /* treads a step; 0: not on stairs */
    double stairs_cd;              /* the cycle while on or leaving stairs (rate-limited); 0: none */
    float slope;             /* smoothed ground slope ahead */          /* st.hip_offset holds last frame's offset */
    sk_locomotor_state st;
    ground_probe ground;       /* terrain rays (counts them) */
};

/* ---- small helpers ------------------------------------------------------ */
static double wrap01d(double t) {
    double r = t - floor(t);
    return r >= 1.0 ? 0.0 : r;
}
static sk_quat yaw_quat(float yaw) { return skm_quat_rot_y(yaw); }
/* by the character's yaw (cached per frame in adjust) */
static sk_vec3 rotc(const sk_locomotor *L, sk_vec3 v) {
    return sk_vec3_make(L->cyaw * v.x + L->syaw * v.z, v.y, -L->syaw * v.x + L->cyaw * v.z);
}
static sk_vec3 rotc_inv(const sk_locomotor *L, sk_vec3 v) {
    return sk_vec3_make(L->cyaw * v.x - L->syaw * v.z, v.y, L->syaw * v.x + L->cyaw * v.z);
}
/* A joint's position and a point in its frame, from the model matrices. */
/* The length a leg reaches over with its IK exact: 0.999 x its rest length minus the soft band. */
static float leg_reach(const sk_locomotor *L, const leg_rt *g) { return g->length * (0.999f - L->soft); }
static sk_vec3 pos_of(const sk_locomotor *L, uint32_t j) { return skm_mat4_pos(&L->model[j]); }
static sk_vec3 point_of(const sk_locomotor *L, uint32_t j, sk_vec3 p) { return skm_mat4_transform_point(&L->model[j], p); }
static float smooth01(float u) { return u * u * (3.0f - 2.0f * u); } /* smoothstep of u in [0, 1] */

/* A planted foot is laid flat (its heel and toe points at their ground
 * heights, adjust_leg): its length along the ground then is the heel-toe
 * distance at the stance sample with the grounds' difference taken out, not
 * (8)'s projection at stance, which is shorter where the clip holds the foot
 * pitched there (a retargeted capture: 0.239 m against 0.27 laid on
 * Mixamo's Xbot, whose footsteps then came out 3 cm short and the laid toe
 * reached over a stair's riser). Returned over the foot length (8), within
 * [1, 1.5]; 1 without samples. */
static float laid_length(const sk_leg_analysis *a) {
    if (!a->heel || !a->toe || !(a->foot_length > 1e-6f)) return 1.0f;
    sk_vec3 d = sk_vec3_sub(a->toe[a->stance_sample], a->heel[a->stance_sample]);
    float dy = a->toe_ground - a->heel_ground, l2 = sk_vec3_dot(d, d) - dy * dy;
    float k = l2 > 0 ? sqrtf(l2) / a->foot_length : 1.0f;
    return isfinite(k) ? skm_clampf(k, 1.0f, 1.5f) : 1.0f;
}
static float unwrap_delta(float a, float b) { /* b - a wrapped into (-pi, pi] */
    return skm_wrap_angle(b - a);
}

/* ---- tracker ------------------------------------------------------------- */
void sk_motion_tracker_reset(sk_motion_tracker *t, sk_vec3 position, float yaw) {
    if (!t) return;
    memset(t, 0, sizeof *t);
    t->position = position;
    t->yaw = yaw;
    t->smoothing = 0.05f;
}

void sk_motion_tracker_update(sk_motion_tracker *t, sk_vec3 position, float yaw, double dt) {
    if (!t || !(dt > 0) || !isfinite(dt) || !skm_vec3_finite(position) || !isfinite(yaw)) return;
    float k = t->updates == 0 ? 1.0f : smoothing_weight(dt, t->smoothing);
    sk_vec3 v = sk_vec3_scale(sk_vec3_sub(position, t->position), (float)(1.0 / dt));
    float w = (float)(unwrap_delta(t->yaw, yaw) / dt);
    sk_vec3 v_new = skm_vec3_lerp(t->velocity, v, k);
    /* the derivative of the smoothed velocity, smoothed in turn */
    sk_vec3 a = t->updates < 2 ? sk_vec3_make(0, 0, 0) : sk_vec3_scale(sk_vec3_sub(v_new, t->velocity), (float)(1.0 / dt));
    t->acceleration = t->updates < 2 ? a : skm_vec3_lerp(t->acceleration, a, k);
    t->velocity = v_new;
    t->angular_velocity += (w - t->angular_velocity) * k;
    t->position = position;
    t->yaw = yaw;
    t->updates++;
}

/* ---- create -------------------------------------------------------------- */
sk_result sk_locomotor_create(const sk_locomotor_desc *desc, const sk_allocator *alloc, sk_locomotor **out,
                              sk_error *err) {
    if (out) *out = NULL;
    if (!desc || !out || !desc->skeleton || !desc->group || !desc->clips)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: NULL description, skeleton, group or clips");
    const sk_skeleton *s = desc->skeleton;
    uint32_t n = sk_motion_group_count(desc->group), legs = sk_motion_group_leg_count(desc->group);
    if (desc->clip_count != n)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: %u clips for a group of %u motions",
                            desc->clip_count, n);
    if (legs == 0 || legs > SK_MOTION_GROUP_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: %u legs", legs);
    for (uint32_t i = 0; i < n; i++)
        if (!desc->clips[i]) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: clip %u is NULL", i);
    const float opts[] = {desc->max_step_up, desc->max_step_down, desc->soft, desc->idle_speed,
                          desc->ground_smoothing};
    for (size_t i = 0; i < SK_ARRAY_COUNT(opts); i++)
        if (!isfinite(opts[i]))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: a non-finite option");
    if (desc->max_step_up < 0 || desc->max_step_down < 0 || desc->idle_speed < 0 || desc->ground_smoothing < 0 ||
        desc->soft >= 0.5f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "locomotor: negative step limits, idle speed or smoothing, or soft >= 0.5");
    uint32_t J = s->joint_count;
    const sk_motion_analysis *m0 = sk_motion_group_motion(desc->group, 0);
    uint32_t hips[SK_MOTION_GROUP_MAX_LEGS];
    for (uint32_t l = 0; l < legs; l++) {
        const sk_leg_analysis *a = &m0->legs[l];
        int32_t js[3] = {a->hip_joint, a->knee_joint, a->ankle_joint};
        for (int k = 0; k < 3; k++)
            if (js[k] < 0 || (uint32_t)js[k] >= J)
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                    "locomotor: leg %s names joint %d, the skeleton has %u", a->name, js[k], J);
        if (a->toe_joint >= (int32_t)J)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: leg %s: toe joint %d out of range",
                                a->name, a->toe_joint);
        hips[l] = (uint32_t)a->hip_joint;
    }
    int32_t body = desc->body_joint;
    if (body < 0) body = legs_common_ancestor(s, hips, legs);
    if (body < 0 || (uint32_t)body >= J)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "locomotor: no body joint (the legs' hips have no common ancestor; set body_joint)");

    size_t size = sizeof(sk_locomotor) + n * sizeof(float) + (size_t)n * legs * sizeof(float) + n * sizeof(double) +
                  (size_t)(n + 1) * J * sizeof(sk_transform) + n * sizeof(sk_blend_input) + n * sizeof(sk_vec3) +
                  (size_t)J * sizeof(sk_mat4) + 64;
    const sk_allocator *al = sk_allocator_or_default(alloc);
    char *mem = sk_alloc(al, size);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "locomotor: out of memory");
    sk_locomotor *L = (sk_locomotor *)mem;
    memset(L, 0, sizeof *L);
    L->alloc = *al;
    L->size = size;
    L->d = *desc;
    L->skel = s;
    L->J = J;
    L->n = n;
    L->legs = legs;
    L->body = (uint32_t)body;
    L->body_end = sk_skeleton_subtree_end(s, L->body);
    char *p = mem + sizeof(sk_locomotor);
    L->model = (sk_mat4 *)p; p += (size_t)J * sizeof(sk_mat4);
    L->scratch = (sk_transform *)p; p += (size_t)(n + 1) * J * sizeof(sk_transform);
    L->clip_times = (double *)p; p += n * sizeof(double);
    L->inputs = (sk_blend_input *)p; p += n * sizeof(sk_blend_input);
    L->weights = (float *)p; p += n * sizeof(float);
    L->centers = (sk_vec3 *)p; p += n * sizeof(sk_vec3);
    L->laid = (float *)p; p += (size_t)n * legs * sizeof(float);

    for (uint32_t i = 0; i < n; i++) {
        const sk_motion_analysis *mi = sk_motion_group_motion(desc->group, i);
        sk_vec3 c = sk_vec3_make(0, 0, 0);
        for (uint32_t l = 0; l < legs; l++) c = sk_vec3_add(c, mi->legs[l].center);
        L->centers[i] = sk_vec3_make(c.x / (float)legs, 0, c.z / (float)legs);
        for (uint32_t l = 0; l < legs; l++) L->laid[i * legs + l] = laid_length(&mi->legs[l]);
    }
    /* the rest pose's model matrices (model space: no root) */
    sk_local_to_model(s, SK_POSE_OF(s, s->rest, NULL), NULL, L->model, J, NULL);
    int32_t bp = s->parents[body];
    L->body_parent = bp >= 0 ? L->model[bp] : sk_mat4_identity();
    for (uint32_t i = 0; i < n; i++) {
        const sk_clip *c = desc->clips[i];
        for (uint32_t t = 0, tc = sk_clip_track_count(c); t < tc; t++) {
            sk_track_info info;
            if (!sk_clip_track_info(c, t, &info) || info.path == SK_PATH_WEIGHTS) continue;
            for (int32_t a = bp; a >= 0; a = s->parents[a])
                if ((uint32_t)a == info.joint) L->moved_above |= (uint64_t)1 << i;
        }
    }
    L->longest_leg = 0;
    for (uint32_t l = 0; l < legs; l++) {
        const sk_leg_analysis *a = &m0->legs[l];
        leg_rt *g = &L->leg[l];
        g->hip = (uint32_t)a->hip_joint;
        g->knee = (uint32_t)a->knee_joint;
        g->ankle = (uint32_t)a->ankle_joint;
        g->tip_joint = a->toe_joint >= 0 ? (uint32_t)a->toe_joint : g->ankle;
        g->hip_end = sk_skeleton_subtree_end(s, g->hip);
        g->ankle_end = sk_skeleton_subtree_end(s, g->ankle);
        g->heel_pt = a->heel_point;
        g->toe_pt = a->toe_point;
        g->length = skm_vec3_len(sk_vec3_sub(pos_of(L, g->knee), pos_of(L, g->hip))) +
                    skm_vec3_len(sk_vec3_sub(pos_of(L, g->ankle), pos_of(L, g->knee)));
        if (!(g->length > 0)) {
            sk_free(&L->alloc, mem, size);
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: leg %s has zero length at rest", a->name);
        }
        double hg = 0, tg = 0;
        for (uint32_t i = 0; i < n; i++) {
            const sk_motion_analysis *mi = sk_motion_group_motion(desc->group, i);
            hg += mi->legs[l].heel_ground;
            tg += mi->legs[l].toe_ground;
        }
        g->heel_ground = (float)(hg / n);
        g->toe_ground = (float)(tg / n);
        if (g->length > L->longest_leg) L->longest_leg = g->length;
    }
    L->max_up = desc->max_step_up > 0 ? desc->max_step_up : 0.8f * L->longest_leg;
    L->max_down = desc->max_step_down > 0 ? desc->max_step_down : 1.2f * L->longest_leg;
    L->ground.terrain = desc->terrain;
    L->ground.max_up = L->max_up;
    L->ground.max_down = L->max_down;
    L->ground.edge_hysteresis = EDGE_HYSTERESIS;
    L->soft = desc->soft < 0 ? 0.0f : (desc->soft > 0 ? desc->soft : 0.02f);
    L->idle_speed = desc->idle_speed > 0 ? desc->idle_speed : 0.1f;
    L->ground_tau = desc->ground_smoothing > 0 ? desc->ground_smoothing : 0.15f;
    *out = L;
    return sk_locomotor_reset(L, 0, 0, 0, err);
}

void sk_locomotor_destroy(sk_locomotor *L) {
    if (!L) return;
    sk_allocator a = L->alloc;
    sk_free(&a, L, L->size);
}

const sk_locomotor_state *sk_locomotor_get_state(const sk_locomotor *L) { return L ? &L->st : NULL; }
const float *sk_locomotor_weights(const sk_locomotor *L) { return L ? L->weights : NULL; }
double sk_locomotor_clip_time(const sk_locomotor *L, uint32_t i) { return L && i < L->n ? L->clip_times[i] : 0.0; }
uint32_t sk_locomotor_body_joint(const sk_locomotor *L) { return L ? L->body : 0; }
const sk_mat4 *sk_locomotor_model(const sk_locomotor *L) { return L && L->model_valid ? L->model : NULL; }

/* ---- terrain: the ground probe (footstep.c) ----------------------------- */
static bool ground_at(sk_locomotor *L, float x, float z, float y_ref, sk_terrain_hit *hit) {
    L->ground.center = L->st.position;
    return ground_probe_cast(&L->ground, x, z, y_ref, hit);
}

/* The lesser height of points a and b above the terrain's bound on the
 * ground under each (sk_terrain_height_bound: at most their heights above
 * the ground); -infinity where the terrain has no bound (rays must tell). */
static float bound_clearance(const sk_locomotor *L, sk_vec3 a, sk_vec3 b) {
    float ya, yb;
    if (!sk_terrain_height_bound(&L->ground.terrain, a.x, a.z, &ya) ||
        !sk_terrain_height_bound(&L->ground.terrain, b.x, b.z, &yb))
        return -INFINITY;
    return skm_fminf(a.y - ya, b.y - yb);
}

static void place_footstep(sk_locomotor *L, const sk_leg_blend *lb, sk_vec3 base, float yaw, double when,
                           int *prefer, sk_footstep *out) {
    L->ground.center = L->st.position;
    footstep_place(&L->ground, lb->foot_direction, base, yaw, when, prefer, out);
}

/* (27)-(33): where the character will be when leg l is next at stance:
 * the footstep's base (heel line, horizontal), its yaw and time. */
static void predict_base(const sk_locomotor *L, uint32_t l, double ct, sk_vec3 *base, float *yaw_to, double *when) {
    double dt_to = L->cd_eff * (1.0 - ct);                                     /* (27) */
    sk_vec3 pos = L->st.position, v = vec3_horizontal(L->tracker.velocity);
    float w = L->tracker.angular_velocity, yaw = L->st.yaw;
    if (L->frozen) { /* standing: footsteps under the body */
        v = sk_vec3_make(0, 0, 0);
        w = 0;
    } else if (L->tracker.smoothing > 0 && fabsf(w) > 1e-3f) {
        /* The tracker's smoothing (a first-order lag of time constant tau)
         * turns a velocity rotating at w into one that trails it by
         * atan(w tau) and is shorter by sqrt(1 + (w tau)^2): undone here, so
         * a steady turn is predicted exactly. */
        float wt = w * L->tracker.smoothing;
        v = sk_vec3_scale(vec3_turn_y(v, atanf(wt)), sqrtf(1 + wt * wt));
    }
    sk_vec3 P;
    if (fabsf(w) > 1e-3f) {
        sk_vec3 tc = sk_vec3_scale(sk_vec3_make(v.z, 0, -v.x), 1.0f / w); /* (31): up x v / turn speed (32) */
        P = sk_vec3_add(sk_vec3_add(pos, tc), vec3_turn_y(sk_vec3_scale(tc, -1), (float)(w * dt_to))); /* (30), (33) */
    } else {
        P = sk_vec3_add(pos, sk_vec3_scale(v, (float)dt_to));                 /* (28) */
    }
    *yaw_to = yaw + (float)(w * dt_to);                                       /* (29) */
    *base = sk_vec3_add(P, vec3_turn_y(L->leg[l].step_pos, *yaw_to));
    base->y = 0;
    *when = L->st.time + dt_to;
}

/* The footstep at a base (cached: rays are cast again only when the base
 * moves by more than 1 cm or the yaw by more than 0.5 degree). */
static void footstep_at(sk_locomotor *L, uint32_t l, sk_vec3 base, float yaw_to, double when, sk_footstep *out) {
    leg_rt *g = &L->leg[l];
    if (g->cast_valid && fabsf(base.x - g->cast_heel.x) < CAST_REUSE && fabsf(base.z - g->cast_heel.z) < CAST_REUSE &&
        fabsf(skm_wrap_angle(yaw_to - g->cast_yaw)) < 0.0087f) {
        *out = g->cast_step;
        out->time = when;
        return;
    }
    place_footstep(L, &L->blend.legs[l], base, yaw_to, when, &g->edge_pref, out);
    g->cast_valid = true;
    g->cast_heel = base;
    g->cast_yaw = yaw_to;
    g->cast_step = *out;
}

/* Terrain under the straight path between two footsteps: the arc amplitude
 * that clears it (see the top). */
static float clearance(sk_locomotor *L, uint32_t l) {
    leg_rt *g = &L->leg[l];
    const sk_footstep *a = &g->from, *b = &g->to;
    if (g->clr_valid && skm_vec3_len(sk_vec3_sub(a->position, g->clr_from)) < CLEAR_REUSE &&
        skm_vec3_len(sk_vec3_sub(b->position, g->clr_to)) < CLEAR_REUSE)
        return g->clr_amp;
    const sk_leg_blend *lb = &L->blend.legs[l];
    float amp = 0;
    for (int k = 1; k <= CLEAR_SAMPLES; k++) {
        float z = (float)k / (CLEAR_SAMPLES + 1);
        sk_vec3 p = skm_vec3_lerp(a->position, b->position, z);
        float yaw = a->yaw + skm_wrap_angle(b->yaw - a->yaw) * z;
        sk_vec3 d = vec3_horizontal(vec3_turn_y(lb->foot_direction, yaw));
        /* where the terrain bounds the ground under both points at most a
         * millimetre above the line, the rays would find no excess: spared */
        if (bound_clearance(L, p, sk_vec3_add(p, d)) >= BOUND_SLACK - 0.001f) continue;
        sk_terrain_hit h, t;
        float top = -INFINITY;
        if (ground_at(L, p.x, p.z, skm_fmaxf(a->position.y, b->position.y), &h)) top = h.point.y;
        if (ground_at(L, p.x + d.x, p.z + d.z, skm_fmaxf(a->position.y, b->position.y), &t)) top = skm_fmaxf(top, t.point.y);
        float excess = top - p.y;
        if (excess > 0.001f) {
            float need = (excess + CLEAR_MARGIN) / skm_fmaxf(sinf(SKM_PI * z), 0.3f);
            if (need > amp) amp = need;
        }
    }
    g->clr_valid = true;
    g->clr_from = a->position;
    g->clr_to = b->position;
    g->clr_amp = amp;
    return amp;
}

/* ---- reset / advance ------------------------------------------------------ */
static void keytimes(const sk_leg_blend *lb, double *lift, double *off, double *strike, double *land) {
    *lift = wrap01d(lb->foot_lift - lb->stance_time);
    *off = wrap01d(lb->foot_off - lb->stance_time);
    *strike = wrap01d(lb->foot_strike - lb->stance_time);
    *land = wrap01d(lb->foot_land - lb->stance_time);
    if (*land < *strike) *land = *strike;
    if (*off < *lift) *off = *lift;
}

/* The blend keytimes() reads changes only here: each leg's are kept (leg_rt.kt). */
static void blend_now(sk_locomotor *L, sk_vec3 v_char) {
    sk_error e; /* as in flight_footbase */
    e.code = SK_OK;
    e.message[0] = '\0';
    /* The same velocity gives the same weights and blend (Kod 4 recomputes
     * "if the velocity changed since the last update"). */
    if (L->blend_valid && fabsf(v_char.x - L->blend_v.x) < 1e-3f && fabsf(v_char.z - L->blend_v.z) < 1e-3f) return;
    L->blend_valid = true;
    L->blend_v = v_char;
    for (uint32_t l = 0; l < L->legs; l++) L->leg[l].ends_valid = false;
    if (sk_motion_group_evaluate(L->d.group, v_char, L->weights, L->n, &L->blend, &e) != SK_OK) {
        for (uint32_t i = 0; i < L->n; i++) L->weights[i] = i == 0 ? 1.0f : 0.0f;
        sk_motion_group_blend(L->d.group, L->weights, L->n, &L->blend, &e);
    }
    /* The character's point is the middle of the feet's paths (the mean of
     * the legs' centres (3)): a capture's character space has its origin
     * where the hips were when the cycle began, anywhere on the floor. */
    sk_vec3 c = sk_vec3_make(0, 0, 0);
    for (uint32_t i = 0; i < L->n; i++) c = sk_vec3_add(c, sk_vec3_scale(L->centers[i], L->weights[i]));
    for (uint32_t l = 0; l < L->blend.leg_count; l++) {
        L->blend.legs[l].stance_position = sk_vec3_sub(L->blend.legs[l].stance_position, c);
        /* the foot as long as it is laid flat (laid_length): footsteps and footbases alike */
        double k = 0, ws = 0;
        for (uint32_t i = 0; i < L->n; i++)
            if (L->weights[i] > 0) k += L->weights[i] * L->laid[i * L->legs + l], ws += L->weights[i];
        if (ws > 1e-6) L->blend.legs[l].foot_direction = sk_vec3_scale(L->blend.legs[l].foot_direction, (float)(k / ws));
    }
    for (uint32_t l = 0; l < L->legs; l++) {
        double *k = L->leg[l].kt;
        keytimes(&L->blend.legs[l], &k[0], &k[1], &k[2], &k[3]);
    }
}

static void update_times(sk_locomotor *L) {
    for (uint32_t i = 0; i < L->n; i++) {
        const sk_motion_analysis *m = sk_motion_group_motion(L->d.group, i);
        double p = sk_motion_group_clip_phase(L->d.group, i, L->st.phase);
        L->clip_times[i] = m->cycle_start + p * m->cycle_duration;
    }
}

sk_result sk_locomotor_reset(sk_locomotor *L, float x, float z, float yaw, sk_error *err) {
    if (!L || !isfinite(x) || !isfinite(z) || !isfinite(yaw))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor reset: NULL or non-finite position/yaw");
    memset(&L->st, 0, sizeof L->st);
    L->st.leg_count = L->legs;
    L->model_valid = false;
    L->st.yaw = skm_wrap_angle(yaw);
    sk_terrain_hit h;
    float y = 0;
    L->st.position = sk_vec3_make(x, 0, z);
    /* The first ray looks from high above for the ground under the point. */
    float keep = L->ground.max_up;
    L->ground.max_up = 1e3f;
    if (ground_at(L, x, z, 0, &h)) y = h.point.y;
    L->ground.max_up = keep;
    L->st.position.y = y;
    sk_motion_tracker_reset(&L->tracker, L->st.position, L->st.yaw);
    blend_now(L, sk_vec3_make(0, 0, 0));
    L->cd_eff = L->blend.cycle_duration;
    L->st.cycle_duration = L->cd_eff;
    L->frozen = true;
    L->idle_time = 0;
    L->hip_valid = false;
    L->slope = 0;
    L->tread_probed = false;
    L->tread_depth = L->tread_rise = L->tread_n = 0;
    L->stairs_cd = 0;
    for (uint32_t l = 0; l < L->legs; l++) {
        leg_rt *g = &L->leg[l];
        g->cast_valid = g->clr_valid = false;
        g->guard = 0;
        g->lift_prev = -1;
        g->seen = false;
        g->pdir_valid = false;
        g->early = -1;
        g->step_pos = vec3_horizontal(L->blend.legs[l].stance_position);
        sk_vec3 base = sk_vec3_add(L->st.position, vec3_turn_y(g->step_pos, L->st.yaw));
        place_footstep(L, &L->blend.legs[l], base, L->st.yaw, 0, NULL, &g->from);
        g->to_base = base;
        g->to_base.y = 0;
        g->to_yaw = L->st.yaw;
        g->edge_pref = 0;
        g->to = g->from;
        g->prev_ct = wrap01d(L->st.phase - L->blend.legs[l].stance_time);
    }
    update_times(L);
    return SK_OK;
}

/* Where each leg's footstep lies about the character at its stance (the
 * prediction's (28)-(30) offset): the blend's stance position, with the
 * legs' spread along the motion scaled by the stride's share of the clips'
 * when the stride is shorter (slower than the blend, steep ground ahead;
 * never longer). The spread along the motion is each leg's distance from
 * the legs' mean along it: none for a walk forward (both feet at their
 * stance under the hips, a foot's length apart across), most of the step
 * for a sidestep, whose feet stand apart along the way it goes. With the
 * clip's spread kept, a sidestep up 0.17 / 0.28 m stairs on a cycle
 * shortened by the slope still put its feet 0.6-0.7 m apart, three treads
 * (0.51 m) one above the other. On sloped ground ahead the spread is also
 * held to what climbs SPREAD_CLIMB of the leg's length between the feet
 * (each leg's offset at most half of it): scaled by the stride alone,
 * CesiumMan's short legs (0.54 m) sidestepping up those stairs still
 * stood a tread or two apart, the hips down to 0.53 of standing over the
 * upper foot. */
static void step_spread(sk_locomotor *L, sk_vec3 v_char, float speed) {
    float full = (float)(skm_vec3_len(L->blend.velocity) * L->blend.cycle_duration);
    float k = full > 1e-4f ? skm_fminf(1.0f, speed * (float)L->cd_eff / full) : 1.0f;
    sk_vec3 u = speed > 1e-3f ? sk_vec3_scale(vec3_horizontal(v_char), 1.0f / speed) : sk_vec3_make(0, 0, 0);
    float mean = 0;
    for (uint32_t l = 0; l < L->legs; l++) mean += sk_vec3_dot(vec3_horizontal(L->blend.legs[l].stance_position), u);
    mean /= (float)(L->legs ? L->legs : 1);
    for (uint32_t l = 0; l < L->legs; l++) {
        sk_vec3 p = vec3_horizontal(L->blend.legs[l].stance_position);
        float dev = sk_vec3_dot(p, u) - mean, kl = k;
        float cap = L->slope > 1e-3f ? 0.5f * SPREAD_CLIMB * L->leg[l].length / L->slope : INFINITY;
        if (fabsf(dev) * kl > cap) kl = cap / fabsf(dev);
        L->leg[l].step_pos = sk_vec3_sub(p, sk_vec3_scale(u, dev * (1.0f - kl)));
    }
}

/* The velocity the blend space is read at (character space): up to
 * WALK_HOLD times the speed of the slowest motion within 45 degrees of the
 * way the character goes, that motion alone (played quicker: the cycle is
 * shortened as past a direction's fastest motion, sk_locomotor_advance);
 * from there the blend rises linearly to the next motion's speed, which it
 * reaches at that speed. People walk faster before they run: blended from
 * the walk's own speed on, a CMU walk of 1.0-1.3 m/s took a third of the
 * run at 1.4 m/s, and its feet were planted for less than 30 % of the
 * frames. */
static sk_vec3 walk_held(const sk_locomotor *L, sk_vec3 vc, float speed) {
    if (!(speed > 1e-3f)) return vc;
    sk_vec3 u = sk_vec3_scale(vc, 1.0f / speed);
    float vs = INFINITY, vn = INFINITY; /* the slowest motion's speed and the next one's */
    for (uint32_t i = 0; i < L->n; i++) {
        const sk_motion_analysis *m = sk_motion_group_motion(L->d.group, i);
        if (!(m->cycle_speed > 0.05f) || !(sk_vec3_dot(m->cycle_direction, u) >= 0.70710678f)) continue;
        if (m->cycle_speed < vs) vn = vs, vs = m->cycle_speed;
        else if (m->cycle_speed < vn) vn = m->cycle_speed;
    }
    /* slower than every such motion, or no faster one that way to hold off from */
    if (!(speed > vs) || !isfinite(vn)) return vc;
    if (speed >= vn) return sk_vec3_scale(u, speed);
    /* held at most halfway to the next motion's speed, so that the blend always
     * rises to it (a next motion within WALK_HOLD of the slowest was taken at once) */
    float held = skm_fminf(WALK_HOLD * vs, 0.5f * (vs + vn));
    float w = speed <= held ? vs : vs + (speed - held) / (vn - held) * (vn - vs);
    return sk_vec3_scale(u, w);
}

/* On regular stairs the cycle is set so that each step climbs a whole
 * number of treads, and trimmed so that each foot lands on a tread's middle
 * (docs/locomotion.md, "A whole number of treads a step"). With the slope's
 * cycle alone (0.39 m steps for CesiumMan at 1.0 m/s on 0.17 / 0.28 m
 * stairs) the feet took one tread, then two, and over two (0.34 m up, 63 %
 * of its leg) the hips came down to half their standing height.
 * - The stairs: ground_probe_treads along the way from the character's
 *   point, once the smoothed slope ahead passes STAIRS_SLOPE0 and again
 *   every TREADS_AGAIN of travel; forward or backward walks of two legs only
 *   (a sidestep's feet stand apart along the way and do not step in turn).
 * - n, the treads a step: the nearest whole number to the step the cycle
 *   gives (speed x cycle / 2), kept while within TREADS_KEEP of it, at
 *   least 1, and lowered while n risers climb more than STAIRS_RISE of the
 *   longest leg; the cycle is 2 n depth / speed unless that is more than 2x
 *   the slope's.
 * - The trim: the leg next to strike (its footstep is held from its strike
 *   on) stands, at the stance time, where the character is then plus its
 *   stance offset; the cycle is changed (by at most STAIRS_TRIM of it) so
 *   that its foot's middle is on a tread's middle. Without it the feet
 *   landed by an edge, and the step-edge rule moved them a tread forward or
 *   back by turns.
 * - Weighted in from slope STAIRS_SLOPE0 to STAIRS_SLOPE1 (the caller then
 *   limits its rate of change). */
#define STAIRS_SLOPE0 0.15f
#define STAIRS_SLOPE1 0.35f
#define TREADS_AGAIN 0.3f /* m */
#define TREADS_KEEP 0.65f
#define STAIRS_RISE 0.45f
#define STAIRS_TRIM 0.15
#define STAIRS_TAU 0.5 /* s */
static double stairs_cadence(sk_locomotor *L, sk_vec3 v, float speed, float gy, double cd) {
    sk_vec3 vc = vec3_turn_y(v, -L->st.yaw);
    if (L->legs != 2 || !(speed > 0.05f) || !(L->slope > STAIRS_SLOPE0) || fabsf(vc.x) > fabsf(vc.z)) {
        L->tread_probed = false;
        L->tread_depth = 0;
        L->tread_n = 0;
        return cd;
    }
    sk_vec3 here = vec3_horizontal(L->st.position), u = sk_vec3_scale(v, 1.0f / speed);
    if (!L->tread_probed || skm_vec3_len(sk_vec3_sub(here, L->tread_from)) >= TREADS_AGAIN) {
        float first = 0;
        L->ground.center = L->st.position;
        if (ground_probe_treads(&L->ground, here, u, gy, &L->tread_depth, &L->tread_rise, &first))
            L->tread_origin = sk_vec3_add(here, sk_vec3_scale(u, first));
        else
            L->tread_depth = 0;
        L->tread_from = here;
        L->tread_probed = true;
    }
    if (!(L->tread_depth > 0)) {
        L->tread_n = 0;
        return cd;
    }
    float steps = speed * (float)cd * 0.5f / L->tread_depth;
    float n = L->tread_n > 0 && fabsf(steps - L->tread_n) < TREADS_KEEP ? L->tread_n : skm_fmaxf(1.0f, roundf(steps));
    while (n > 1 && n * fabsf(L->tread_rise) > STAIRS_RISE * L->longest_leg) n -= 1;
    L->tread_n = n;
    double cq = 2.0 * n * L->tread_depth / speed;
    if (!(cq >= 0.5 * cd && cq <= 2.0 * cd)) return cd;
    uint32_t lb = 0; /* the leg next to strike, at cycle time ct_lb */
    double soonest = 2, ct_lb = 0;
    for (uint32_t l = 0; l < L->legs; l++) {
        double ct = wrap01d(L->st.phase - L->blend.legs[l].stance_time), to = wrap01d(L->leg[l].kt[2] - ct);
        if (to < soonest) soonest = to, lb = l, ct_lb = ct;
    }
    double rest = skm_fmax(1.0 - ct_lb, 0.05);
    sk_vec3 mid = sk_vec3_add(L->leg[lb].step_pos, sk_vec3_scale(L->blend.legs[lb].foot_direction, 0.5f));
    sk_vec3 at = sk_vec3_add(sk_vec3_add(here, sk_vec3_scale(v, (float)(cq * rest))), vec3_turn_y(mid, L->st.yaw));
    float ph = sk_vec3_dot(sk_vec3_sub(vec3_horizontal(at), L->tread_origin), u) / L->tread_depth;
    double trim = -(ph - floorf(ph) - 0.5f) * L->tread_depth / (speed * rest);
    cq += skm_fmax(-STAIRS_TRIM * cq, skm_fmin(STAIRS_TRIM * cq, trim));
    float w = skm_fminf(1.0f, (L->slope - STAIRS_SLOPE0) / (STAIRS_SLOPE1 - STAIRS_SLOPE0));
    return cd + (cq - cd) * w;
}

sk_result sk_locomotor_advance(sk_locomotor *L, double dt, float x, float z, float yaw, sk_error *err) {
    if (!L) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor: NULL");
    if (!(dt > 0) || !(dt <= 1.0) || !isfinite(x) || !isfinite(z) || !isfinite(yaw))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "locomotor: dt must be in (0, 1] s and the position and yaw finite (dt %g)", dt);
    L->ground.rays = 0;
    L->st.time += dt;
    L->frame_dt = dt;
    /* The character's height: the ground smoothed over ground_tau, taken
     * where the point will be ground_tau ahead at its velocity (moving): a
     * first-order lag behind ground that rises at a steady rate (a ramp,
     * stairs) trails it by rate x tau, and the hips came down with it (the
     * hip adjustment then stretches the legs toward treads the lagging
     * body is under: 8 to 13 cm at 1.4 m/s on 0.17 / 0.28 stairs). */
    sk_terrain_hit h;
    float gy = L->st.position.y, gs = gy;
    if (ground_at(L, x, z, L->st.position.y, &h)) gy = gs = h.point.y;
    {
        sk_vec3 va = vec3_horizontal(L->tracker.velocity);
        sk_terrain_hit ha;
        if (skm_vec3_len(va) > 1e-3f &&
            ground_at(L, x + va.x * L->ground_tau, z + va.z * L->ground_tau, L->st.position.y, &ha))
            gs = ha.point.y;
    }
    float y = L->st.position.y + (gs - L->st.position.y) * smoothing_weight(dt, L->ground_tau);
    L->st.position = sk_vec3_make(x, y, z);
    L->st.yaw = skm_wrap_angle(yaw);
    sk_motion_tracker_update(&L->tracker, L->st.position, L->st.yaw, dt);
    L->st.velocity = L->tracker.velocity;
    L->st.angular_velocity = L->tracker.angular_velocity;

    /* Weights from the velocity in character space (§4.2, Kod 4). */
    sk_vec3 v = vec3_horizontal(L->tracker.velocity);
    float speed = skm_vec3_len(v);
    blend_now(L, walk_held(L, vec3_turn_y(v, -L->st.yaw), speed));
    float vb = skm_vec3_len(L->blend.velocity);
    double cd = L->blend.cycle_duration;
    /* Slower than the blended clips: longer cycles (at most 2x), while
     * moving. Stopping (below idle speed) finishes the step in flight at the
     * clips' own cadence: a slowed last step kept one foot up for over a
     * second while the standing foot rolled onto its toes. Faster than
     * them (past the fastest clip of a direction: a slow backward walk
     * driven at 1.4 m/s): shorter cycles, by the same square root (at most
     * 2x quicker), so stride and cadence share the speed-up; with the
     * cycle kept, the stride outgrew the legs and the hips went down to
     * reach the feet. */
    /* Turning in place steps too: a turn of w rad/s counts as the speed
     * of a foot a leg's length from the character's point (at 90 degrees/s
     * the mannequin steps at its walking cadence), from 20 degrees/s. */
    float turn = fabsf(L->tracker.angular_velocity) * L->longest_leg;
    bool turning = fabsf(L->tracker.angular_velocity) >= TURN_STEP_RATE;
    float pace = turning ? skm_fmaxf(speed, turn) : speed;
    if (pace < vb && vb > 0 && pace >= L->idle_speed) cd *= skm_fmin(2.0, sqrt(vb / skm_fmax(pace, 0.25 * vb)));
    if (pace > vb && vb > 0) cd *= skm_fmax(0.5, sqrt(vb / pace));
    /* Steep ground ahead (stairs, ramps): shorter, quicker steps. The
     * clips' strides (0.75 m a step for the mannequin's walk) would
     * otherwise climb 0.45 m a step on 0.17/0.28 stairs and fold the
     * swinging leg up to the hip. The slope is the height difference to
     * the ground 0.6 m ahead (one ray; the footsteps' own slope reacts a
     * step too late for a run onto stairs), smoothed over 0.3 s; the cycle
     * is shortened by 1 + 1.2 slope (to 45 % on 45 degrees). */
    if (speed > 1e-3f) {
        sk_vec3 ahead = sk_vec3_add(L->st.position, sk_vec3_scale(v, 0.6f / speed));
        sk_terrain_hit ha;
        float slope = 0;
        if (ground_at(L, ahead.x, ahead.z, L->st.position.y, &ha)) slope = fabsf(ha.point.y - gy) / 0.6f;
        L->slope += (skm_fminf(slope, 2.0f) - L->slope) * smoothing_weight(dt, 0.3f);
    } else {
        L->slope += (0 - L->slope) * smoothing_weight(dt, 0.3f);
    }
    cd /= 1.0 + SLOPE_CADENCE * L->slope;
    /* Whole treads a step on stairs; the cycle moves to that and back by at
     * most a factor e every STAIRS_TAU (entering the stairs at once, the
     * cycle halved while a foot was in flight and it landed beside the other). */
    double cs = stairs_cadence(L, v, speed, gy, cd);
    if (L->stairs_cd > 0 || cs != cd) {
        double prev = L->stairs_cd > 0 ? L->stairs_cd : cd, k = exp(dt / STAIRS_TAU);
        double next = skm_fmin(prev * k, skm_fmax(prev / k, cs));
        L->stairs_cd = L->tread_n > 0 || fabs(next - cd) > 1e-3 * cd ? next : 0;
        cd = next;
    }
    L->cd_eff = cd;
    L->st.cycle_duration = cd;
    step_spread(L, vec3_turn_y(v, -L->st.yaw), speed);

    /* Stopping: below idle speed the phase runs only while a foot is up,
     * until it has landed (foot-land: flat on the ground, in stance), so a
     * stop never freezes a foot between strike and land, on the ground but
     * not planted. */
    bool any_up = false;
    for (uint32_t l = 0; l < L->legs; l++) {
        double off = L->leg[l].kt[1], land = L->leg[l].kt[3];
        double ct = wrap01d(L->st.phase - L->blend.legs[l].stance_time);
        if (ct > off && ct < land) any_up = true;
    }
    bool want_move = speed >= L->idle_speed || turning;
    L->frozen = !want_move && !any_up;
    L->st.mode = want_move ? SK_LOCOMOTION_MOVING : (L->frozen ? SK_LOCOMOTION_STANDING : SK_LOCOMOTION_STOPPING);
    if (!L->frozen) L->st.phase = wrap01d(L->st.phase + dt / cd);
    if (!L->external_group) { /* else the caller's state machine sets it (sk_locomotor_set_group_weight) */
        float target = L->frozen ? 0.0f : 1.0f;
        L->st.moving += (target - L->st.moving) * smoothing_weight(dt, 0.2f);
        if (L->frozen && L->st.moving < 1e-3f) L->st.moving = 0;
    }
    L->idle_time += dt;
    update_times(L);
    L->st.rays = L->ground.rays;
    return SK_OK;
}

void sk_locomotor_set_group_weight(sk_locomotor *L, float w) {
    if (!L) return;
    if (!(w >= 0.0f)) { /* negative or NaN: the locomotor fades its idle itself again */
        L->external_group = false;
        return;
    }
    L->external_group = true;
    L->st.moving = w > 1.0f ? 1.0f : w;
}

/* ---- sample --------------------------------------------------------------- */
sk_result sk_locomotor_sample(sk_locomotor *L, sk_pose *pose, sk_error *err) {
    if (!L || !pose) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor sample: NULL");
    sk_result r = sk_pose_check(L->skel, pose, "locomotor sample", err);
    if (r != SK_OK) return r;
    uint32_t J = L->J, k = 0;
    sk_pose views[SK_MOTION_GROUP_MAX_MOTIONS];
    for (uint32_t i = 0; i < L->n; i++) {
        if (!(L->weights[i] > 1e-4f)) continue;
        sk_transform *loc = L->scratch + (size_t)i * J;
        views[k] = sk_pose_view(loc, J, NULL, 0);
        r = sk_clip_sample(L->d.clips[i], L->skel, L->clip_times[i], SK_LOOP_REPEAT, &views[k], err);
        if (r != SK_OK) return r;
        /* Remove the root motion: the analysis took it as a constant
         * velocity of the hips from the cycle's start. */
        const sk_motion_analysis *m = sk_motion_group_motion(L->d.group, i);
        sk_vec3 vf = m->backward ? sk_vec3_scale(m->root_velocity, -1) : m->root_velocity;
        sk_vec3 dm = sk_vec3_add(sk_vec3_scale(vf, (float)(L->clip_times[i] - m->cycle_start)), L->centers[i]);
        sk_mat4 above = L->body_parent;
        if (L->moved_above >> i & 1u) /* the body's parent as this clip poses it */
            for (int32_t a = L->skel->parents[L->body]; a >= 0; a = L->skel->parents[a]) {
                sk_mat4 ma = sk_mat4_from_transform(&loc[a]);
                above = a == L->skel->parents[L->body] ? ma : sk_mat4_mul(&ma, &above);
            }
        loc[L->body].t = sk_vec3_sub(loc[L->body].t, skm_mat4_unrotate(&above, dm));
        L->inputs[k].pose = &views[k];
        L->inputs[k].weight = L->weights[i];
        L->inputs[k].mask = NULL;
        L->inputs[k].channels = NULL;
        k++;
    }
    sk_blend_options bo = {.rotation = SK_BLEND_NLERP, .no_rest_fill = true};
    sk_pose out = sk_pose_view(pose->local, J, NULL, 0);
    if (k == 0) return sk_pose_rest(L->skel, pose, err);
    r = sk_blend_poses(L->skel, L->inputs, k, &bo, &out, err);
    if (r != SK_OK) return r;
    if (L->d.idle && !L->external_group && L->st.moving < 1.0f) {
        sk_transform *loc = L->scratch + (size_t)L->n * J;
        sk_pose ip = sk_pose_view(loc, J, NULL, 0);
        r = sk_clip_sample(L->d.idle, L->skel, L->idle_time, SK_LOOP_REPEAT, &ip, err);
        if (r != SK_OK) return r;
        r = sk_blend_two(L->skel, &out, &ip, 1.0f - L->st.moving, NULL, false, &out, err);
    }
    return r;
}

/* ---- adjust --------------------------------------------------------------- */
/* World matrices of joints [from, to) of the pose: the core's forward
 * kinematics (sk_local_to_model_masked's kernel, core/internal.h: the pose
 * is checked once a frame) under the character's placement (set_root). A
 * frame computes every joint once at its start (the steps read the legs'
 * and their ancestors'), moves the body's subtree by the hip offset, and
 * computes again the subtrees the leg IK turns: no other joint changes. The
 * pose was checked by the caller. */
static void fk(sk_locomotor *L, const sk_transform *loc, uint32_t from, uint32_t to) {
    sk_local_to_model_kernel(L->skel, loc, &L->st.root, from, to, NULL, L->model);
}

/* Height of the upper intersection of the vertical line through hip with
 * the sphere (center c, radius r), relative to the hip. */
static float sphere_up(sk_vec3 hip, sk_vec3 c, float r) {
    float dx = hip.x - c.x, dz = hip.z - c.z;
    float q = r * r - dx * dx - dz * dz;
    return (c.y - hip.y) + (q > 0 ? sqrtf(q) : 0.0f);
}

/* The world rotations of leg l's hip, knee and ankle in the pose (before
 * its IK): the hip's parent's from its matrix (or the character's at a
 * root; prev_pr: the previous leg's when both hips share the parent), the
 * rest composed down the chain where each is the parent of the next, else
 * read from their matrices. */
static void leg_rotations(const sk_locomotor *L, const sk_transform *loc, uint32_t l, const sk_quat *prev_pr,
                          sk_quat *pr, sk_quat *hip, sk_quat *knee, sk_quat *ankle) {
    const leg_rt *g = &L->leg[l];
    const int32_t *par = L->skel->parents;
    int32_t hp = par[g->hip];
    if (prev_pr && l > 0 && par[L->leg[l - 1].hip] == hp) *pr = *prev_pr;
    else *pr = hp >= 0 ? skm_mat4_rotation(&L->model[hp]) : L->qyaw;
    *hip = child_world_rot(*pr, loc[g->hip].r);
    *knee = par[g->knee] == (int32_t)g->hip ? child_world_rot(*hip, loc[g->knee].r) : skm_mat4_rotation(&L->model[g->knee]);
    *ankle = par[g->ankle] == (int32_t)g->knee ? child_world_rot(*knee, loc[g->ankle].r)
                                                : skm_mat4_rotation(&L->model[g->ankle]);
}

static void set_root(sk_locomotor *L) {
    L->qyaw = yaw_quat(L->st.yaw);
    L->cyaw = cosf(L->st.yaw);
    L->syaw = sinf(L->st.yaw);
    sk_quat q = L->qyaw;
    sk_transform t = {L->st.position, q, sk_vec3_make(1, 1, 1)};
    L->st.root = sk_mat4_from_transform(&t);
}

/* What one adjust frame hands from step to step, per leg. */
typedef struct adjust_frame {
    sk_quat cinv;                                   /* the character's yaw, inverted */
    sk_vec3 cpos;                                   /* the character's ground point */
    double phase;                                   /* the group phase */
    double cts[SK_MOTION_GROUP_MAX_LEGS];           /* each leg's cycle time from its stance */
    double kt[SK_MOTION_GROUP_MAX_LEGS][4];         /* its keytimes: lift, off, strike, land */
    float flight[SK_MOTION_GROUP_MAX_LEGS];         /* flight time (0 on the ground) */
    float clear[SK_MOTION_GROUP_MAX_LEGS];          /* in flight: the foot's lower point above the ground (m) */
    float supported;                                /* supported_height this frame (NaN: not yet asked) */
    /* in flight, when the guard's rays were spared (foot_target): where to
     * cast them if leg_ik needs clear (guard_clear) */
    bool clear_pending[SK_MOTION_GROUP_MAX_LEGS];
    sk_vec3 guard_heel[SK_MOTION_GROUP_MAX_LEGS], guard_toe[SK_MOTION_GROUP_MAX_LEGS];
    float guard_ref[SK_MOTION_GROUP_MAX_LEGS], guard_w[SK_MOTION_GROUP_MAX_LEGS];
    sk_vec3 ankle_target[SK_MOTION_GROUP_MAX_LEGS]; /* (66) */
    float off_ref[SK_MOTION_GROUP_MAX_LEGS];        /* in flight: the lowest hip offset the leg may ask for (m) */
    sk_quat ankle_rot[SK_MOTION_GROUP_MAX_LEGS];    /* the ankle's world rotation wanted */
    /* world rotations in the pose before the IK: the hip's parent, hip, knee, ankle */
    sk_quat hip_pr[SK_MOTION_GROUP_MAX_LEGS], hip_wr[SK_MOTION_GROUP_MAX_LEGS], knee_wr[SK_MOTION_GROUP_MAX_LEGS],
        ankle_wr[SK_MOTION_GROUP_MAX_LEGS];
} adjust_frame;

/* Footsteps: a new one when a leg's cycle wraps (stance), the next
 * predicted (27)-(33) until the foot strikes; each leg's cycle time and
 * keytimes into A. */
static void adjust_footsteps(sk_locomotor *L, adjust_frame *A) {
    for (uint32_t l = 0; l < L->legs; l++) {
        leg_rt *g = &L->leg[l];
        const sk_leg_blend *lb = &L->blend.legs[l];
        double lift = g->kt[0], strike = g->kt[2], land = g->kt[3];
        A->kt[l][0] = lift, A->kt[l][1] = g->kt[1], A->kt[l][2] = strike, A->kt[l][3] = land;
        double ct = wrap01d(A->phase - lb->stance_time);
        A->cts[l] = ct;
        if (g->early >= 0) { /* lifted early (early_lift): until it lands again */
            if (ct >= land || ct < g->early || !(g->early < lift)) {
                g->early = -1;
                g->ends_valid = false;
            } else {
                A->kt[l][0] = lift = g->early;
                if (A->kt[l][1] < lift) A->kt[l][1] = lift;
            }
        }
        if (ct < g->prev_ct - 0.5) { /* wrapped: the foot is on the step it went to */
            g->from = g->to;
            g->cast_valid = false;
            g->edge_pref = 0;
        }
        g->prev_ct = ct;
        if (ct < strike) {
            sk_vec3 base;
            float yaw_to;
            double when;
            predict_base(L, l, ct, &base, &yaw_to, &when);
            if (ct > lift && ct < land) {
                /* In flight a new prediction (a turn, a change of speed) is
                 * approached at most at 3 m/s or twice the character's
                 * speed, whichever is faster (a swinging foot moves at about
                 * twice the body's speed), so the foot bends its path
                 * instead of jumping (as seed 004 §7.3 blends from the old
                 * arc to the new); the footstep is cast at the limited base,
                 * so it is always on the ground. At 3 m/s alone, a run
                 * slowing in a turn landed its foot behind the body. */
                sk_vec3 d = sk_vec3_sub(base, g->to_base);
                float rate = skm_fmaxf(TO_RATE, 2.0f * skm_vec3_len(vec3_horizontal(L->tracker.velocity)));
                float len = skm_vec3_len(d), lim = rate * (float)L->frame_dt;
                if (len > lim) {
                    float k = lim / len;
                    base = sk_vec3_add(g->to_base, sk_vec3_scale(d, k));
                    yaw_to = g->to_yaw + skm_wrap_angle(yaw_to - g->to_yaw) * k;
                }
            }
            g->to_base = base;
            g->to_yaw = yaw_to;
            footstep_at(L, l, base, yaw_to, when, &g->to);
        }
    }
}

/* (45)-(52): the height of the ground the legs stand on, each leg's
 * footstep weighted by how planted it is at its cycle time. */
static float supported_height(const sk_locomotor *L, const adjust_frame *A) {
    sk_vec3 vdir = skm_vec3_unit(vec3_horizontal(L->tracker.velocity));
    sk_vec3 vdc = rotc_inv(L, vdir);
    float cdist = skm_vec3_len(vec3_horizontal(L->tracker.velocity)) * (float)L->cd_eff;
    double sum_h = 0;
    float sum_y = 0;
    for (uint32_t k = 0; k < L->legs; k++) {
        const leg_rt *o = &L->leg[k];
        double ck = A->cts[k];
        sk_vec3 tf = sk_vec3_scale(skm_quat_rotate(o->from.rotation, vdc), cdist); /* (46) */
        sk_vec3 tt = sk_vec3_scale(skm_quat_rotate(o->to.rotation, vdc), cdist);   /* (47) */
        float wk = (float)(-cos(SKM_PI * ck) / 2 + 0.5);                                 /* (48) */
        sk_vec3 ghp = skm_vec3_lerp(sk_vec3_add(o->from.position, sk_vec3_scale(tf, (float)ck)),
                                    sk_vec3_add(o->to.position, sk_vec3_scale(tt, (float)(ck - 1))),
                                    wk);                                                 /* (49) */
        ghp = sk_vec3_add(ghp, rotc(L, sk_vec3_scale(vec3_horizontal(L->blend.legs[k].stance_position), -1))); /* (50) */
        double hk = (cos(2 * SKM_PI * ck) + 1) / 2 + 1e-4;                               /* (51) */
        sum_h += hk;
        sum_y += (float)hk * ghp.y;
    }
    return (float)(sum_y / sum_h); /* (52) */
}

/* (34)-(58): the footbase of leg l in flight at flight time `flight`
 * (0 at foot-lift, 1 at foot-land) and the foot's rotation: between its
 * footsteps along the clips' normalised trajectory, lifted over the
 * footsteps' tangent planes and the terrain between them, not lower than
 * the ground the other legs stand on, the lift rate-limited. */
static void flight_footbase(sk_locomotor *L, adjust_frame *A, uint32_t l, float flight, sk_vec3 *F_out,
                            sk_quat *Rf_out) {
    leg_rt *g = &L->leg[l];
    const sk_leg_blend *lb = &L->blend.legs[l];
    double lift = A->kt[l][0], land = A->kt[l][3], ct = A->cts[l];
    sk_vec3 F;
    sk_quat Rf;
    sk_vec3 nf, nl, nd;
    sk_error e; /* not read: the arguments are the locomotor's own (no 512-byte clear per call) */
    e.code = SK_OK;
    e.message[0] = '\0';
    double gl = lb->stance_time + lift, gd = lb->stance_time + land;
    sk_motion_group_footbase(L->d.group, L->weights, L->n, &L->blend, l, A->phase, &nf, &e);
    if (!g->ends_valid) { /* the trajectory's ends change only with the blend */
        sk_motion_group_footbase(L->d.group, L->weights, L->n, &L->blend, l, gl, &g->fb_lift, &e);
        sk_motion_group_footbase(L->d.group, L->weights, L->n, &L->blend, l, gd, &g->fb_land, &e);
        g->ends_valid = true;
    }
    nl = g->fb_lift;
    nd = g->fb_land;
    float dz = nd.z - nl.z;
    float s = dz > 1e-4f ? skm_clampf((nf.z - nl.z) / dz, 0, 1) : flight;
    float xn = nf.x - (nl.x + (nd.x - nl.x) * s), yn = nf.y - (nl.y + (nd.y - nl.y) * s);
    const sk_footstep *a = &g->from, *b = &g->to;
    F = skm_vec3_lerp(a->position, b->position, s);                     /* (34) */
    /* Height: (34) lerps it with the clips' forward progress, which
     * is concentrated in mid-flight; between footsteps at different
     * heights the foot would then climb (or drop) all at once, the
     * knee flexing at up to 30 rad/s on 0.17 m stairs. The height
     * moves with the flight time instead (smoothstep): up early,
     * down late, as people take stairs. */
    {
        float ss = smooth01(flight);
        F.y = a->position.y + (b->position.y - a->position.y) * ss;
    }
    float arc = sinf(SKM_PI * s);                                       /* (36) */
    /* (37)-(38): toward where the body would put the foot now. */
    sk_vec3 here = sk_vec3_add(A->cpos, rotc(L, g->step_pos));
    sk_vec3 off3 = vec3_horizontal(sk_vec3_sub(here, skm_vec3_lerp(a->position, b->position, (float)ct)));
    F = sk_vec3_add(F, sk_vec3_scale(off3, arc));
    float base_y = F.y;
    /* (39)-(44): follow the footsteps' tangent planes; and clear the
     * terrain between them (see the top). */
    sk_vec3 mid = sk_vec3_scale(sk_vec3_add(a->position, b->position), 0.5f);         /* (39) */
    float hf = sk_vec3_dot(sk_vec3_sub(a->position, mid), a->normal) / skm_fmaxf(a->normal.y, 0.1f); /* (40) */
    float hn = sk_vec3_dot(sk_vec3_sub(b->position, mid), b->normal) / skm_fmaxf(b->normal.y, 0.1f); /* (41) */
    float hmax = skm_fmaxf(skm_fmaxf(hf, hn), 0.0f);                                          /* (42) */
    float lift_amp = skm_fmaxf(2.0f * hmax / SKM_PI, clearance(L, l));                   /* (43) */
    F.y += lift_amp * arc;                                                            /* (44) */
    /* (45)-(54): not lower than the ground the other legs stand on. */
    {
        if (isnan(A->supported)) A->supported = supported_height(L, A); /* one for every leg */
        float supported = A->supported;
        float lifted = F.y + (supported - F.y) * sinf(SKM_PI * flight); /* (53)-(54) */
        if (lifted > F.y) F.y = lifted;
    }
    /* The lifts (44) and (54) follow footsteps that are still being
     * predicted (the other legs' too): where a prediction moves to
     * another tread they would jump, and (54) lets go of the foot
     * as the arc passes the supported height. The lift rises at
     * most 2.5 m/s (4 cm a frame at 60 Hz), falls at most a quarter
     * of that, and is back to what the formulas give by landing;
     * the guard below keeps the foot out of the ground meanwhile. */
    {
        float want = F.y - base_y, rise = LIFT_RATE * (float)L->frame_dt, fall = 0.25f * rise;
        if (g->lift_prev < 0) g->lift_prev = want; /* first frame of the flight */
        float lp = skm_clampf(want, g->lift_prev - fall, g->lift_prev + rise);
        g->lift_prev = skm_fminf(lp, want + 0.3f * (1.0f - s)); /* back to the lifts by landing */
        F.y = base_y + g->lift_prev;
    }
    /* (55)-(58): the clips' sideways and vertical motion. */
    sk_vec3 sd = vec3_horizontal(sk_vec3_sub(b->position, a->position));                                /* (55) */
    sk_vec3 side = skm_vec3_unit(sk_vec3_cross(sk_vec3_make(0, 1, 0), sd));                  /* (56) */
    if (skm_vec3_is_zero(side)) side = rotc(L, sk_vec3_make(1, 0, 0));
    F = sk_vec3_add(F, sk_vec3_scale(side, xn));                                             /* (57) */
    F.y += yn;                                                                               /* (58) */
    Rf = skm_quat_nlerp(a->rotation, b->rotation, s);
    *F_out = F;
    *Rf_out = Rf;
}

/* Leg l's ankle target (65)-(66) and wanted rotation: the footbase on its
 * footstep or in flight (flight_footbase), the clip's foot moved there,
 * kept above the ground in flight; its joints' world rotations before the
 * IK. */
static void foot_target(sk_locomotor *L, adjust_frame *A, const sk_transform *loc, uint32_t l) {
    leg_rt *g = &L->leg[l];
    const sk_leg_blend *lb = &L->blend.legs[l];
    double lift = A->kt[l][0], land = A->kt[l][3];
    double ct = A->cts[l];
    sk_vec3 F;
    sk_quat Rf;
    float flight = 0;
    /* Standing still (the phase stopped with every foot on the ground),
     * a rolling foot stays on its footstep too. */
    bool rolling = ct > lift && ct < land && (ct <= A->kt[l][1] || ct >= A->kt[l][2]);
    bool in_air = ct > lift && ct < land && land > lift && !(L->frozen && rolling);
    if (!in_air) {
        const sk_footstep *fs = ct <= A->kt[l][1] ? &g->from : &g->to;
        F = fs->position;
        Rf = fs->rotation;
    } else {
        flight = (float)((ct - lift) / (land - lift));
        flight_footbase(L, A, l, flight, &F, &Rf);
        /* Touch-down: over the flight's last part the footbase reaches its
         * landing footstep across the ground first, so the foot comes down
         * onto it instead of skimming in at walking speed (a capture's heel
         * is within 2 cm of the floor for the last tenth of its swing). */
        float u = skm_clampf((flight - TOUCH_FROM) / (TOUCH_TO - TOUCH_FROM), 0.0f, 1.0f);
        u = smooth01(u);
        if (u > 0) F.x += (g->to.position.x - F.x) * u, F.z += (g->to.position.z - F.z) * u;
    }
    A->flight[l] = flight;
    A->clear[l] = INFINITY;
    A->clear_pending[l] = false;
    if (!g->pdir_valid || (in_air && flight >= 0.5f)) {
        g->pdir = lb->foot_direction;
        g->pdir_valid = true;
    }
    const sk_vec3 fdir = g->pdir;
    /* (65)-(66): the clip's foot, moved so its footbase is at F and
     * turned from the character's frame into the footstep's. */
    sk_vec3 heel_w = point_of(L, g->ankle, g->heel_pt), toe_w = point_of(L, g->tip_joint, g->toe_pt);
    sk_vec3 heel_c = skm_quat_rotate(A->cinv, sk_vec3_sub(heel_w, A->cpos));
    sk_vec3 toe_c = skm_quat_rotate(A->cinv, sk_vec3_sub(toe_w, A->cpos));
    sk_vec3 ank_c = skm_quat_rotate(A->cinv, sk_vec3_sub(pos_of(L, g->ankle), A->cpos));
    /* The heel's and toe's ground heights of the blended pose: each
     * motion's (its lowest over the cycle) weighted as the motions are. A
     * run's toe or heel may never come as low as the walk's (a forefoot
     * strike); an unweighted mean tilted the walk's balance toward a foot
     * standing on its heel with its toe in the air. */
    float hg = 0, tg = 0, ws = 0;
    for (uint32_t i = 0; i < L->n; i++) {
        float w = L->weights[i];
        if (!(w > 0)) continue;
        const sk_leg_analysis *la = &sk_motion_group_motion(L->d.group, i)->legs[l];
        hg += w * la->heel_ground, tg += w * la->toe_ground, ws += w;
    }
    if (ws > 1e-6f) hg /= ws, tg /= ws;
    else hg = g->heel_ground, tg = g->toe_ground;
    /* Planted (foot-land .. foot-lift), the sole lies on the ground: the
     * clips' pitch of the heel-toe line against the flat foot's (the two
     * points at their ground heights) is taken out about the foot's side
     * axis, in full while planted and faded in the flight over FLAT_RAMP
     * of the cycle (out after foot-lift, in before foot-land): fades inside
     * the planted phase turned the planted foot. A capture's planted foot still rolls by a few
     * degrees (markers on skin, a retargeted ankle), which moved the sole's
     * points along the ground by a centimetre or two per stance. */
    sk_quat Qflat = sk_quat_identity();
    bool planted = !in_air && (ct <= lift || ct >= land);
    if (planted || in_air) {
        /* whole while planted; in flight faded out over FLAT_RAMP after foot-lift and in
         * over FLAT_RAMP before foot-land, so that a planted foot never turns */
        float w = planted ? 1.0f : (float)skm_fmax(0.0, 1.0 - skm_fmin(ct - lift, land - ct) / FLAT_RAMP);
        sk_vec3 d = vec3_horizontal(sk_vec3_sub(toe_c, heel_c));
        float hl = skm_vec3_len(d);
        if (w > 0 && hl > 1e-4f) {
            float tilt = atan2f((toe_c.y - tg) - (heel_c.y - hg), hl);
            sk_vec3 side = sk_vec3_make(d.z / hl, 0, -d.x / hl); /* a turn about it by + lowers the toe */
            Qflat = skm_quat_axis_angle(side, tilt * w);
            sk_vec3 piv = sk_vec3_scale(sk_vec3_add(heel_c, toe_c), 0.5f);
            heel_c = sk_vec3_add(piv, skm_quat_rotate(Qflat, sk_vec3_sub(heel_c, piv)));
            toe_c = sk_vec3_add(piv, skm_quat_rotate(Qflat, sk_vec3_sub(toe_c, piv)));
            ank_c = sk_vec3_add(piv, skm_quat_rotate(Qflat, sk_vec3_sub(ank_c, piv)));
            /* ... and its heading held at the stance's (the footstep's
             * direction, foot_direction): a capture's pelvis turns a few
             * degrees either way over a stance, and the foot, carried in
             * the character's frame, twisted on the ground with it. */
            sk_vec3 want = vec3_horizontal(fdir);
            d = vec3_horizontal(sk_vec3_sub(toe_c, heel_c));
            if (skm_vec3_len(want) > 1e-4f && skm_vec3_len(d) > 1e-4f) {
                float yaw = atan2f(d.x * want.z - d.z * want.x, d.x * want.x + d.z * want.z);
                sk_quat Qy = skm_quat_axis_angle(sk_vec3_make(0, 1, 0), -yaw * w);
                heel_c = sk_vec3_add(piv, skm_quat_rotate(Qy, sk_vec3_sub(heel_c, piv)));
                toe_c = sk_vec3_add(piv, skm_quat_rotate(Qy, sk_vec3_sub(toe_c, piv)));
                ank_c = sk_vec3_add(piv, skm_quat_rotate(Qy, sk_vec3_sub(ank_c, piv)));
                Qflat = skm_quat_mul(Qy, Qflat);
            }
        }
    }
    float hh = heel_c.y - hg, th = toe_c.y - tg;
    float fl = lb->foot_length > 1e-4f ? lb->foot_length : 1e-4f;
    float bal = atanf((hh - th) / fl * BALANCE_ALPHA) / SKM_PI + 0.5f;                           /* (10) */
    sk_vec3 fb_c = sk_vec3_add(sk_vec3_scale(heel_c, 1 - bal),
                               sk_vec3_scale(sk_vec3_sub(toe_c, fdir), bal));                   /* (11) */
    /* Planted, the foot's lower point is on the ground: the balance's mix
     * of heel and toe heights is, for a flat foot, either of them; for a
     * foot the clips hold tilted (a blend whose motions' grounds disagree:
     * a run whose toe never comes as low as its heel) it put the lower
     * point under the ground. */
    if (!in_air) fb_c.y = skm_fminf(heel_c.y, toe_c.y);
    /* F carries the footbase's height in flight ((58) adds the clips'
     * lift), so the ankle keeps its offset from the clip's footbase. */
    if (in_air) {
        /* Within reach: a swinging foot's target is a point of its path
         * between footsteps, which can be far behind the body (the first
         * step from standing, a blend whose stride changes in a turn).
         * Reaching it lowered the hips to the floor ((59) takes every
         * leg). A foot in the air asks the hips no lower than they were
         * when it lifted (or are now, if lower: off_ref, adjust_hips): its
         * footbase moves toward the hip until the ankle is within the
         * leg's reach from there, before the guard below (straight toward
         * the hip: moved across only, a trailing foot on stairs crossed
         * over a riser in a frame and the guard lifted it a tread). Hips
         * lowered at foot-lift (a trailing foot left far behind: the first
         * stride from standing) are not held there: the floor rises to the
         * clips' own height over the flight's first LIFT_RECOVER. Held,
         * the swinging leg kept the body crouched until the other foot
         * landed (CesiumMan's torso at 0.37-0.41 m of 0.70 for 0.35 s). */
        if (!g->air) g->off_lift = L->st.hip_offset;
        float off_ref = g->off_lift < 0 ? g->off_lift * (1.0f - smooth01(skm_clampf(flight / LIFT_RECOVER, 0.0f, 1.0f)))
                                        : skm_fminf(g->off_lift, L->st.hip_offset);
        {   /* ... from LIFT_REACH of the flight (as it peels off the ground the leg holds the
             * hips as a planted one does: moved there, its toe skated) until the landing
             * nears: over the flight's last LAND_REACH it reaches for its footstep as every
             * leg does ((59): the floor sinks by a leg length at either end) */
            float u = skm_clampf((flight - (1.0f - LAND_REACH)) / LAND_REACH, 0.0f, 1.0f);
            float e = 1.0f - skm_clampf(flight / LIFT_REACH, 0.0f, 1.0f);
            off_ref -= (smooth01(u) + smooth01(e)) * g->length;
        }
        A->off_ref[l] = off_ref;
        if (L->hip_valid) {
            sk_vec3 H = pos_of(L, g->hip);
            H.y += off_ref;
            sk_vec3 at = sk_vec3_add(F, skm_quat_rotate(Rf, sk_vec3_sub(ank_c, fb_c)));
            float len = leg_reach(L, g);
            sk_vec3 d = sk_vec3_sub(at, H);
            float dl = skm_vec3_len(d);
            if (dl > len) F = sk_vec3_add(F, sk_vec3_scale(d, len / dl - 1.0f));
        }
        /* Guard: the foot's heel and toe at this frame stay above the
         * ground under them (a riser passed sideways in a turn, an edge
         * between the clearance samples); the lift decays at 1 m/s. */
        sk_vec3 hw = sk_vec3_add(F, skm_quat_rotate(Rf, sk_vec3_sub(heel_c, fb_c)));
        sk_vec3 tw = sk_vec3_add(F, skm_quat_rotate(Rf, sk_vec3_sub(toe_c, fb_c)));
        /* Swing clearance (below): away from lift-off and landing (the
         * first and last 10% of the flight, faded) the foot's lower point
         * clears the ground by CLEAR_MARGIN. A capture's swing skims the
         * floor by 1-2 cm (people's toe clearance) while the foot moves at
         * walking speed and more: on the ground, that reads as a foot
         * sliding. */
        float w = skm_fminf(1.0f, skm_fminf(flight, 1.0f - flight) / 0.10f);
        /* Where the terrain bounds the ground under heel and toe (a mesh's
         * cell) and both are above it by more than the guard's margin and
         * the clearance asks, the rays would change nothing: spared, and
         * cast only if leg_ik reads the clearance (guard_clear). */
        float decayed = skm_fmaxf(0.0f, g->guard - (float)L->frame_dt), lo = bound_clearance(L, hw, tw); /* at most the gap */
        A->clear_pending[l] = lo >= GUARD_MARGIN + BOUND_SLACK && lo >= CLEAR_MARGIN * w - decayed + BOUND_SLACK;
        if (A->clear_pending[l]) {
            A->guard_heel[l] = hw, A->guard_toe[l] = tw, A->guard_ref[l] = F.y, A->guard_w[l] = w;
            g->guard = decayed;
            F.y += g->guard;
        } else {
            float need = 0, gap = INFINITY;
            sk_terrain_hit gh;
            if (ground_at(L, hw.x, hw.z, F.y, &gh))
                need = skm_fmaxf(need, gh.point.y + GUARD_MARGIN - hw.y), gap = hw.y - gh.point.y;
            if (ground_at(L, tw.x, tw.z, F.y, &gh))
                need = skm_fmaxf(need, gh.point.y + GUARD_MARGIN - tw.y), gap = skm_fminf(gap, tw.y - gh.point.y);
            g->guard = skm_fmaxf(need, decayed);
            F.y += g->guard;
            if (isfinite(gap) && w > 0) {
                float up = CLEAR_MARGIN * w - (gap + g->guard);
                if (up > 0) F.y += up;
            }
            if (isfinite(gap)) A->clear[l] = skm_fmaxf(gap + g->guard, CLEAR_MARGIN * w); /* the lower point's height after the lift */
        }
    } else {
        g->guard = 0;
        g->lift_prev = -1;
    }
    g->air = in_air;
    A->ankle_target[l] = sk_vec3_add(F, skm_quat_rotate(Rf, sk_vec3_sub(ank_c, fb_c)));           /* (66) */
    leg_rotations(L, loc, l, l ? &A->hip_pr[l - 1] : NULL, &A->hip_pr[l], &A->hip_wr[l], &A->knee_wr[l], &A->ankle_wr[l]);
    A->ankle_rot[l] = skm_quat_normalize(skm_quat_mul(Rf, skm_quat_mul(Qflat, skm_quat_mul(A->cinv, A->ankle_wr[l]))));
}

/* A planted foot in the second half of its stance (after the cycle's
 * wrap, before foot-lift) that the leg reaches only with the hips lowered
 * by more than EARLY_DROP of its length: it lifts now. (59) would take the
 * hips down to it: a trailing foot left far behind (the first steps from
 * standing with a long planted phase; a blend moving from a run toward a
 * walk while the body still moves at running speed) put the body on the
 * floor, and a foot past any reach was dragged. Its foot-lift is this
 * cycle time until it lands again (adjust_footsteps); the foot's target is
 * then found again, in flight. */
static bool early_lift(sk_locomotor *L, adjust_frame *A, uint32_t l) {
    leg_rt *g = &L->leg[l];
    double ct = A->cts[l], lift = A->kt[l][0], land = A->kt[l][3];
    if (g->early >= 0 || L->frozen || !L->hip_valid || A->flight[l] > 0 || !(ct < lift) || !(lift < land)) return false;
    float len = leg_reach(L, g);
    if (!(sphere_up(pos_of(L, g->hip), A->ankle_target[l], len) < -EARLY_DROP * g->length)) return false;
    g->early = ct;
    g->ends_valid = false;
    A->kt[l][0] = ct;
    if (A->kt[l][1] < ct) A->kt[l][1] = ct;
    return true;
}

/* (59)-(64): the hip offset that lets the legs reach their ankle targets,
 * rate-limited; the body joint moved by it (and the world matrices computed
 * so far). */
static void adjust_hips(sk_locomotor *L, const adjust_frame *A, sk_transform *loc) {
    float hip_off = 0;
    if (!L->d.no_hip_adjust) {
        float max_min = INFINITY, des_min = INFINITY, des_sum = 0;
        for (uint32_t l = 0; l < L->legs; l++) {
            leg_rt *g = &L->leg[l];
            sk_vec3 H = pos_of(L, g->hip);
            float d0 = skm_vec3_len(sk_vec3_sub(pos_of(L, g->ankle), H));
            float len = leg_reach(L, g);
            if (d0 > len) d0 = len;
            float des = sphere_up(H, A->ankle_target[l], d0), mx = sphere_up(H, A->ankle_target[l], len);
            if (des > mx) des = mx;
            if (A->flight[l] > 0 && L->hip_valid) { /* in the air: no lower than off_ref (foot_target) */
                des = skm_fmaxf(des, A->off_ref[l]);
                mx = skm_fmaxf(mx, A->off_ref[l]);
            }
            max_min = skm_fminf(max_min, mx);                                                            /* (59) */
            des_min = skm_fminf(des_min, des);                                                           /* (60) */
            des_sum += des;
        }
        float des_avg = des_sum / (float)L->legs;                                                    /* (61) */
        float mta = des_avg - des_min, mtm = max_min - des_min;                                      /* (63), (64) */
        hip_off = des_min + (mta + mtm > 1e-9f ? mta * mtm / (mta + mtm) : 0.0f);                    /* (62) */
        if (!isfinite(hip_off)) hip_off = 0;
        /* The offset follows the swinging feet's targets, which move fast
         * on stairs: it changes at most 2 m/s (3.3 cm a frame at 60 Hz),
         * except that it never stays above what the legs reach (59). At
         * 1 m/s, hardly above the body's own climb up stairs at 1.4 m/s
         * (0.85 m/s), hips taken down for a trailing foot rose too slowly
         * to stand over the foot that had landed a tread higher. */
        if (L->hip_valid) {
            float lim = HIP_RATE * (float)L->frame_dt;
            hip_off = skm_clampf(hip_off, L->st.hip_offset - lim, L->st.hip_offset + lim);
        }
        if (hip_off > max_min) hip_off = max_min;
        if (!isfinite(hip_off)) hip_off = 0;
        L->hip_valid = true;
        sk_vec3 dw = sk_vec3_make(0, hip_off, 0);
        int32_t bp = L->skel->parents[L->body];
        sk_vec3 dl = skm_mat4_unrotate(bp >= 0 ? &L->model[bp] : &L->st.root, dw);
        loc[L->body].t = sk_vec3_add(loc[L->body].t, dl);
        /* the body's subtree moves by dw in the world: its matrices too
         * (the joints no step turns keep them to the end of the frame) */
        const float d4[4] = {dw.x, dw.y, dw.z, 0.0f}; /* m[15] + 0 stays 1: four lanes at once */
        for (uint32_t j = L->body; j < L->body_end; j++)
            for (int k = 0; k < 4; k++) L->model[j].m[12 + k] += d4[k];
    }
    L->st.hip_offset = hip_off;
}

/* A->clear[l], the rays foot_target spared cast now (the same rays: the
 * same points, reference height and guard): what they would have given. */
static float guard_clear(sk_locomotor *L, adjust_frame *A, uint32_t l) {
    if (!A->clear_pending[l]) return A->clear[l];
    A->clear_pending[l] = false;
    sk_vec3 hw = A->guard_heel[l], tw = A->guard_toe[l];
    float gap = INFINITY;
    sk_terrain_hit gh;
    if (ground_at(L, hw.x, hw.z, A->guard_ref[l], &gh)) gap = hw.y - gh.point.y;
    if (ground_at(L, tw.x, tw.z, A->guard_ref[l], &gh)) gap = skm_fminf(gap, tw.y - gh.point.y);
    if (isfinite(gap)) A->clear[l] = skm_fmaxf(gap + L->leg[l].guard, CLEAR_MARGIN * A->guard_w[l]);
    return A->clear[l];
}

/* Leg l: two-bone IK of the hip and knee to the ankle target, the ankle
 * turned to its wanted rotation, the leg's world matrices brought up to
 * date; the foot's state. */
static void leg_ik(sk_locomotor *L, adjust_frame *A, sk_transform *loc, uint32_t l) {
    sk_ik_options io = {.soft = L->soft};
    leg_rt *g = &L->leg[l];
    /* the two-bone solve reads the joints' positions and the hip's and
     * knee's rotations */
    sk_transform th = {pos_of(L, g->hip), A->hip_wr[l], sk_vec3_make(1, 1, 1)};
    sk_transform tk = {pos_of(L, g->knee), A->knee_wr[l], sk_vec3_make(1, 1, 1)};
    sk_transform ta = {pos_of(L, g->ankle), A->ankle_wr[l], sk_vec3_make(1, 1, 1)};
    /* Bend plane: the clips' knee, off the hip-ankle line, plus a little
     * of the foot's forward direction, so a leg the clips hold nearly
     * straight still bends the way its foot points instead of flipping
     * (the plane of an almost straight leg is noise). */
    sk_ik_target tg = {.position = A->ankle_target[l], .has_pole = true};
    {
        sk_vec3 h = th.t, k = tk.t, a = ta.t;
        /* A foot in flight keeps its ankle out of the ball of 30% of the
         * leg around its hip, pushed down (continuously in the target): a
         * swing lifted over a tread can carry it past the hip at the hip's
         * height (a stride that climbs most of a leg on stairs), where the
         * knee's plane is undefined and turns half a circle in a frame. */
        float rr = 0.3f * g->length, hx = tg.position.x - h.x, hz = tg.position.z - h.z;
        float cap = h.y - sqrtf(skm_fmaxf(rr * rr - hx * hx - hz * hz, 0.0f));
        /* ... but never down into the ground: at most by the clearance
         * its lower point has (a run's high heel kick passes near the hip
         * with the toe just over the floor). */
        if (A->flight[l] > 0 && hx * hx + hz * hz < rr * rr && tg.position.y > cap)
            tg.position.y = skm_fmaxf(cap, tg.position.y - skm_fmaxf(guard_clear(L, A, l) - GUARD_MARGIN, 0.0f));
        sk_vec3 ha = sk_vec3_sub(a, h);
        float hl2 = sk_vec3_dot(ha, ha);
        sk_vec3 off = sk_vec3_sub(k, h);
        if (hl2 > 1e-12f) off = sk_vec3_sub(off, sk_vec3_scale(ha, sk_vec3_dot(off, ha) / hl2));
        sk_vec3 fwd = skm_quat_rotate(A->ankle_rot[l], skm_quat_rotate(sk_quat_conjugate(A->ankle_wr[l]),
                                                                    sk_vec3_sub(pos_of(L, g->tip_joint), a)));
        fwd = skm_vec3_unit(vec3_horizontal(fwd));
        sk_vec3 dir = skm_vec3_unit(sk_vec3_add(off, sk_vec3_scale(fwd, 0.05f * g->length)));
        tg.pole = sk_vec3_add(sk_vec3_scale(sk_vec3_add(h, tg.position), 0.5f), sk_vec3_scale(dir, g->length));
    }
    sk_quat ch, ck;
    bool reached = false;
    if (sk_ik_two_bone(&th, &tk, &ta, &tg, &io, &ch, &ck, &reached)) {
        loc[g->hip].r = skm_quat_normalize(skm_quat_mul(loc[g->hip].r, ch));
        loc[g->knee].r = skm_quat_normalize(skm_quat_mul(loc[g->knee].r, ck));
    }
    uint32_t end = g->hip_end;
    int32_t ap = L->skel->parents[g->ankle];
    if (ap >= 0 && g->ankle > g->hip && g->ankle < end) {
        /* the ankle turned to its footstep under its parent's new rotation:
         * a hip - knee - ankle chain composes the knee's from the hip's
         * parent's, and the subtree is computed once; else the subtree up
         * to the ankle first, the parent's rotation read from its matrix */
        bool chain = (uint32_t)ap == g->knee && L->skel->parents[g->knee] == (int32_t)g->hip;
        if (!chain) fk(L, loc, g->hip, g->ankle);
        sk_quat apr = chain ? child_world_rot(child_world_rot(A->hip_pr[l], loc[g->hip].r), loc[g->knee].r)
                            : skm_mat4_rotation(&L->model[ap]);
        loc[g->ankle].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(apr), A->ankle_rot[l]));
        fk(L, loc, chain ? g->hip : g->ankle, end);
    } else {
        fk(L, loc, g->hip, end);
        if (ap >= 0) {
            sk_quat apr = skm_mat4_rotation(&L->model[ap]);
            loc[g->ankle].r = skm_quat_normalize(skm_quat_mul(sk_quat_conjugate(apr), A->ankle_rot[l]));
            fk(L, loc, g->ankle, g->ankle_end);
        }
    }
    sk_locomotor_foot *f = &L->st.feet[l];
    double lift = A->kt[l][0], off = A->kt[l][1], strike = A->kt[l][2], land = A->kt[l][3];
    bool was_grounded = f->grounded;
    sk_vec3 was_ankle = f->ankle;
    f->cycle_time = (float)A->cts[l];
    f->grounded = A->cts[l] <= off || A->cts[l] >= strike;
    /* Standing still, a foot on the ground is planted once the idle has
     * mostly faded in (a heel raised by the frozen toe roll is then down
     * to a tenth: its heel-toe midpoint moves under 0.1 mm more). */
    f->stance = A->cts[l] <= lift || A->cts[l] >= land || (L->frozen && L->st.moving < 0.01f && f->grounded);
    f->flight = A->flight[l];
    f->from = g->from;
    f->to = g->to;
    f->foot = vec3_horizontal(L->blend.legs[l].foot_direction);
    f->reached = reached;
    f->heel = point_of(L, g->ankle, g->heel_pt);
    f->toe = point_of(L, g->tip_joint, g->toe_pt);
    f->ankle = pos_of(L, g->ankle);
    footstep_event(&f->event, was_grounded, f->grounded, &g->to, &g->from, was_ankle, f->ankle, L->frame_dt);
    if (!g->seen) memset(&f->event, 0, sizeof f->event);
    g->seen = true;
}

sk_result sk_locomotor_adjust(sk_locomotor *L, sk_pose *pose, sk_error *err) {
    if (!L || !pose) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "locomotor adjust: NULL");
    sk_result r = sk_pose_check(L->skel, pose, "locomotor adjust", err);
    if (r != SK_OK) return r;
    sk_transform *loc = pose->local;
    set_root(L);
    fk(L, loc, 0, L->J); /* every joint: the steps read the legs' and their ancestors' */
    adjust_frame A;
    A.cinv = sk_quat_conjugate(L->qyaw);
    A.cpos = L->st.position;
    A.phase = L->st.phase;
    A.supported = NAN;
    adjust_footsteps(L, &A);
    for (uint32_t l = 0; l < L->legs; l++) {
        foot_target(L, &A, loc, l);
        if (early_lift(L, &A, l)) foot_target(L, &A, loc, l);
    }
    adjust_hips(L, &A, loc);
    for (uint32_t l = 0; l < L->legs; l++) leg_ik(L, &A, loc, l);
    L->st.rays = L->ground.rays;
    L->model_valid = true;
    return SK_OK;
}

/* The clips alone, placed at the character: the baseline. */
static void plain_feet(sk_locomotor *L, sk_pose *pose) {
    set_root(L);
    fk(L, pose->local, 0, L->J);
    L->model_valid = true;
    for (uint32_t l = 0; l < L->legs; l++) {
        leg_rt *g = &L->leg[l];
        const sk_leg_blend *lb = &L->blend.legs[l];
        double lift = g->kt[0], off = g->kt[1], strike = g->kt[2], land = g->kt[3];
        double ct = wrap01d(L->st.phase - lb->stance_time);
        sk_locomotor_foot *f = &L->st.feet[l];
        bool was_grounded = f->grounded;
        sk_vec3 was_ankle = f->ankle;
        f->cycle_time = (float)ct;
        f->stance = ct <= lift || ct >= land;
        f->grounded = ct <= off || ct >= strike;
        f->flight = 0;
        f->heel = point_of(L, g->ankle, g->heel_pt);
        f->toe = point_of(L, g->tip_joint, g->toe_pt);
        f->ankle = pos_of(L, g->ankle);
        f->reached = true;
        /* no footsteps here: the event is where the foot is, on flat ground */
        sk_footstep here = {0};
        here.position = sk_vec3_scale(sk_vec3_add(f->heel, f->toe), 0.5f);
        here.normal = sk_vec3_make(0, 1, 0);
        footstep_event(&f->event, was_grounded, f->grounded, &here, &here, was_ankle, f->ankle, L->frame_dt);
        if (!g->seen) memset(&f->event, 0, sizeof f->event);
        g->seen = true;
    }
}

sk_result sk_locomotor_update(sk_locomotor *L, double dt, float x, float z, float yaw, sk_pose *pose,
                              sk_error *err) {
    sk_result r = sk_locomotor_advance(L, dt, x, z, yaw, err);
    if (r == SK_OK) r = sk_locomotor_sample(L, pose, err);
    if (r != SK_OK) return r;
    if (L->d.plain) {
        plain_feet(L, pose);
        return SK_OK;
    }
    return sk_locomotor_adjust(L, pose, err);
}
