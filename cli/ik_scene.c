/* IK scenes for `skelanim render --ik` (see ik_scene.h). */
#include "ik_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sk_vec3 mpos(const sk_mat4 *m) { return sk_vec3_make(m->m[12], m->m[13], m->m[14]); }

static sk_quat mrot(const sk_mat4 *m) {
    sk_transform x;
    sk_mat4_decompose(m, &x);
    return x.r;
}

static sk_result find_chain(const sk_skeleton *s, const char *root, const char *tip, uint32_t *out, uint32_t cap,
                            uint32_t *count, sk_error *err) {
    sk_error e = {0};
    if (sk_ik_chain_find_named(s, root, tip, out, cap, count, &e) != SK_OK)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "IK chain %s:%s: %s", root, tip, e.message);
    return SK_OK;
}

sk_result skr_ik_scene_init(skr_ik_scene *sc, const sk_asset *asset, skr_ik_mode mode, int32_t clip,
                            const char *chain_root, const char *chain_tip, const char *legs, float slope_deg,
                            sk_error *err) {
    memset(sc, 0, sizeof *sc);
    if (!asset || !asset->skeleton) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "IK scene: no skeleton");
    const sk_skeleton *s = asset->skeleton;
    sc->mode = mode;
    sc->asset = asset;
    sc->clip = clip;
    if (clip >= (int32_t)asset->clip_count) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "IK scene: no clip %d", clip);
    if (mode == SKR_IK_REACH) {
        bool dflt = !chain_root || !chain_tip;
        if (dflt) chain_root = "upperarm_r", chain_tip = "hand_r";
        if (find_chain(s, chain_root, chain_tip, sc->arm, SKR_IK_MAX_ARM, &sc->arm_count, err) != SK_OK) {
            if (dflt)
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                    "no joints named upperarm_r/hand_r (the built-in mannequin's arm): name the arm "
                                    "with --ik-chain ROOT:TIP (`skelanim info FILE` lists the joints)");
            return SK_ERR_INVALID_ARGUMENT;
        }
        if (sc->arm_count < 2)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "IK chain %s:%s: needs at least two joints", chain_root,
                                chain_tip);
        /* Rest model positions of the chain: its length and the path's centre. */
        sk_vec3 prev = sk_vec3_make(0, 0, 0);
        for (uint32_t i = 0; i < sc->arm_count; i++) {
            sk_mat4 m = sk_mat4_identity();
            for (int32_t j = (int32_t)sc->arm[i]; j >= 0; j = s->parents[j]) { /* walk up: model = ... * local */
                sk_mat4 l = sk_mat4_from_transform(&s->rest[j]);
                m = sk_mat4_mul(&l, &m);
            }
            sk_vec3 p = mpos(&m);
            if (i == 0) sc->shoulder = p;
            else sc->arm_length += sk_vec3_length(sk_vec3_sub(p, prev));
            prev = p;
        }
        if (!(sc->arm_length > 1e-6f))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "IK chain %s:%s has zero length", chain_root, chain_tip);
        return SK_OK;
    }
    if (mode != SKR_IK_SLOPE) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "IK scene: unknown mode");
    if (!(fabsf(slope_deg) < 60.0f))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "--slope %g: expected an angle in (-60, 60) degrees",
                            (double)slope_deg);
    sc->slope = slope_deg * 3.14159265f / 180.0f;
    char names[4][128];
    if (legs) {
        if (sscanf(legs, "%127[^:]:%127[^,],%127[^:]:%127s", names[0], names[1], names[2], names[3]) != 4)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "--ik-legs %s: expected THIGH_L:FOOT_L,THIGH_R:FOOT_R", legs);
    } else {
        snprintf(names[0], sizeof names[0], "thigh_l"), snprintf(names[1], sizeof names[1], "foot_l");
        snprintf(names[2], sizeof names[2], "thigh_r"), snprintf(names[3], sizeof names[3], "foot_r");
    }
    for (int k = 0; k < 2; k++) {
        uint32_t n = 0, tmp[SKR_IK_MAX_ARM];
        if (find_chain(s, names[2 * k], names[2 * k + 1], tmp, SKR_IK_MAX_ARM, &n, err) != SK_OK) {
            if (!legs)
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                    "no joints named thigh_l/foot_l, thigh_r/foot_r (the built-in mannequin's legs): "
                                    "name them with --ik-legs THIGH_L:FOOT_L,THIGH_R:FOOT_R (`skelanim info FILE` "
                                    "lists the joints)");
            return SK_ERR_INVALID_ARGUMENT;
        }
        if (n != 3)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "leg %s:%s has %u joints; the two-bone leg needs 3",
                                names[2 * k], names[2 * k + 1], n);
        memcpy(sc->leg[k], tmp, sizeof sc->leg[k]);
    }
    /* The hips: the root of the skeleton tree holding the legs. */
    int32_t r = (int32_t)sc->leg[0][0];
    while (s->parents[r] >= 0) r = s->parents[r];
    sc->hips = (uint32_t)r;
    if (clip >= 0) { /* root motion per loop: the hips' translation at the end minus at the start */
        const sk_clip *c = asset->clips[clip];
        sk_transform *pose = malloc(((size_t)s->joint_count + 1) * sizeof *pose);
        float *w = malloc(((size_t)s->weight_total + 1) * sizeof *w);
        if (!pose || !w) {
            free(pose), free(w);
            return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        sk_clip_sample(c, s, 0.0f, SK_LOOP_CLAMP, SK_POSE_OF(s, pose, w), NULL);
        sk_vec3 a = pose[sc->hips].t;
        sk_clip_sample(c, s, sk_clip_duration(c), SK_LOOP_CLAMP, SK_POSE_OF(s, pose, w), NULL);
        sc->loop_offset = sk_vec3_sub(pose[sc->hips].t, a);
        sc->loop_offset.y = 0;
        free(pose), free(w);
    }
    return SK_OK;
}

float skr_ik_ground_height(const skr_ik_scene *sc, float x, float z) {
    (void)x;
    return sc->mode == SKR_IK_SLOPE ? z * tanf(sc->slope) : 0.0f;
}

sk_vec3 skr_ik_ground_normal(const skr_ik_scene *sc) {
    float a = sc->mode == SKR_IK_SLOPE ? sc->slope : 0.0f;
    return sk_vec3_make(0, cosf(a), -sinf(a));
}

/* The reach path: a closed Catmull-Rom spline through points around the
 * chain root, in units of the chain's length (x: the character's left, y:
 * up, z: front). The fourth point is beyond reach (1.36 lengths away). */
sk_vec3 skr_ik_reach_target(const skr_ik_scene *sc, double u) {
    static const float P[][3] = {
        {-0.05f, -0.35f, 0.80f}, /* front, low */
        {-0.25f, 0.45f, 0.70f},  /* front, high */
        {-0.20f, 0.92f, 0.15f},  /* overhead */
        {-1.30f, 0.25f, 0.30f},  /* out to the side, beyond reach */
        {-0.75f, -0.20f, -0.20f},/* side, behind */
        {-0.45f, -0.60f, -0.35f},/* low, behind */
        {0.45f, -0.15f, 0.60f},  /* across the body */
    };
    const int n = (int)(sizeof P / sizeof P[0]);
    double f = u - floor(u);
    double x = f * n;
    int i = (int)x;
    if (i >= n) i = n - 1;
    float t = (float)(x - i), t2 = t * t, t3 = t2 * t;
    const float *p0 = P[(i + n - 1) % n], *p1 = P[i], *p2 = P[(i + 1) % n], *p3 = P[(i + 2) % n];
    float o[3];
    for (int k = 0; k < 3; k++)
        o[k] = 0.5f * ((2 * p1[k]) + (-p0[k] + p2[k]) * t + (2 * p0[k] - 5 * p1[k] + 4 * p2[k] - p3[k]) * t2 +
                       (-p0[k] + 3 * p1[k] - 3 * p2[k] + p3[k]) * t3);
    float L = sc->arm_length;
    return sk_vec3_make(sc->shoulder.x + o[0] * L, sc->shoulder.y + o[1] * L, sc->shoulder.z + o[2] * L);
}

sk_result skr_ik_scene_pose(const skr_ik_scene *sc, double t, uint32_t frame, uint32_t frames, sk_transform *local,
                            sk_mat4 *world, float *weights, sk_transform *fk_local, sk_mat4 *fk_world,
                            skr_ik_frame *info, sk_error *err) {
    const sk_skeleton *s = sc->asset->skeleton;
    skr_ik_frame dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    if (sc->clip >= 0) sk_clip_sample(sc->asset->clips[sc->clip], s, (float)t, SK_LOOP_REPEAT, SK_POSE_OF(s, local, weights), NULL);
    else sk_pose_rest(s, SK_POSE_OF(s, local, weights), NULL);
    if (sc->mode == SKR_IK_SLOPE && sc->clip >= 0) { /* keep walking across loops */
        float d = sk_clip_duration(sc->asset->clips[sc->clip]);
        if (d > 0) {
            float loops = floorf((float)t / d);
            local[sc->hips].t = sk_vec3_add(local[sc->hips].t, sk_vec3_scale(sc->loop_offset, loops));
        }
    }
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
    if (fk_local) memcpy(fk_local, local, s->joint_count * sizeof *local);
    if (fk_world) memcpy(fk_world, world, s->joint_count * sizeof *world);
    sk_ik_options opt;
    memset(&opt, 0, sizeof opt);
    sk_ik_target tg;
    memset(&tg, 0, sizeof tg);
    if (sc->mode == SKR_IK_REACH) {
        double u = frames ? (double)frame / frames : 0.0;
        tg.position = skr_ik_reach_target(sc, u);
        sk_ik_chain ch = {s, sc->arm, sc->arm_count, NULL};
        if (sc->arm_count == 3) {
            opt.solver = SK_IK_TWO_BONE;
            /* The elbow bends down, out and back (a natural arm). */
            float L = sc->arm_length;
            tg.has_pole = true;
            tg.pole = sk_vec3_add(sc->shoulder, sk_vec3_make(-0.6f * L, -0.9f * L, -0.5f * L));
        } else {
            opt.solver = SK_IK_FABRIK;
        }
        info->target = tg.position;
        if (sk_ik_solve(&ch, &tg, &opt, SK_POSE_OF((&ch)->skeleton, local, NULL), NULL, 0, &info->result, err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
        return SK_OK;
    }
    /* slope */
    const float ca = cosf(sc->slope);
    sk_vec3 ank[2];
    float shift = INFINITY;
    for (int k = 0; k < 2; k++) {
        sk_vec3 p = mpos(&world[sc->leg[k][2]]);
        info->animated_height[k] = p.y;
        /* Perpendicular distance to the slope = the animated height above the
         * level ground, at the same x and z: y = z tan(a) + h / cos(a). */
        ank[k] = sk_vec3_make(p.x, skr_ik_ground_height(sc, p.x, p.z) + p.y / ca, p.z);
        info->ankle_target[k] = ank[k];
        shift = fminf(shift, ank[k].y - p.y);
    }
    info->hips_shift = shift;
    sk_quat foot_fk[2];
    for (int k = 0; k < 2; k++) foot_fk[k] = mrot(&world[sc->leg[k][2]]);
    local[sc->hips].t.y += shift; /* the hips are a root: local = model */
    sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
    const sk_quat tilt = sk_quat_from_axis_angle(sk_vec3_make(1, 0, 0), -sc->slope); /* +Y -> the slope's normal */
    for (int k = 0; k < 2; k++) {
        sk_ik_chain ch = {s, sc->leg[k], 3, NULL};
        memset(&tg, 0, sizeof tg);
        tg.position = ank[k];
        /* Knee toward the character's front: a pole ahead of the knee. */
        sk_vec3 knee = mpos(&world[sc->leg[k][1]]);
        sk_vec3 fwd = sk_quat_rotate(mrot(&world[sc->hips]), sk_vec3_make(0, 0, 1));
        tg.has_pole = true;
        tg.pole = sk_vec3_add(knee, sk_vec3_scale(fwd, 1.0f));
        memset(&opt, 0, sizeof opt);
        opt.solver = SK_IK_TWO_BONE;
        if (sk_ik_solve(&ch, &tg, &opt, SK_POSE_OF((&ch)->skeleton, local, NULL), NULL, 0, &info->leg_result[k], err) != SK_OK) return SK_ERR_INVALID_ARGUMENT;
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
        /* The foot: its animated world orientation, tilted with the ground. */
        sk_quat want = sk_quat_normalize(sk_quat_mul(tilt, foot_fk[k]));
        sk_quat shin = mrot(&world[sc->leg[k][1]]);
        local[sc->leg[k][2]].r = sk_quat_normalize(sk_quat_mul(sk_quat_inverse(shin), want));
        sk_local_to_model(s, SK_POSE_OF(s, local, NULL), NULL, world, (s)->joint_count, NULL);
    }
    return SK_OK;
}
