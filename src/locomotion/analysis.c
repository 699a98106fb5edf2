/* Motion analysis (seed 002 ch. 3, formulas (1)-(22); Johansen 2009).
 *
 * One pass over N samples of the clip gives, per leg, the heel and toe curves
 * in character space (model space minus the clip's linear root motion; see
 * analysis.h). Everything after that works on those arrays: §3.1 finds the
 * stance sample by the cost (7), the foot by (8)-(9), the footbase by
 * (10)-(11) and the keytimes by walking forward and backward from stance;
 * §3.2 gives the stride (12)-(15), the cycle (16)-(18) and the normalised
 * footbase trajectory (19)-(22).
 *
 * Keytime rule. The seed walks from stance until a threshold height and
 * takes the sample of greatest curvature as heel-off (toe-off, and backward
 * heel-/toe-strike). On a soft landing (a foot set down with zero vertical
 * speed, as the mannequin's are) the greatest curvature comes several
 * samples before the foot touches, so we take instead the last sample (from
 * stance) at which the point is still within the contact threshold of its
 * lowest height: the same walk, the same threshold idea, the touch-down
 * itself. Keytimes are therefore on the sample grid (resolution 1/N). */
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/core/pose.h"
#include "skelanim/locomotion/analysis.h"
#include "analysis_keytimes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SK_ANALYSIS_MAX_SAMPLES 100000u
#define SK_ANALYSIS_MIN_SAMPLES 4u
#define SK_ANALYSIS_MAX_GAIT_CYCLE 3.0 /* s: the longest cycle sk_motion_find_cycle returns */
#define SHORT_PLANTED 0.1 /* of the cycle: a planted phase this short is looked for again (analyze_leg) */
/* sk_motion_find_cycle: at the two ends of a cycle each ankle is within
 * CYCLE_FOOT_MATCH of its leg of the same place about the hips, and its two
 * velocities about the hips differ by at most half the sum of their sizes
 * plus CYCLE_FOOT_SPEED legs per second: moving the same way. Half a cycle
 * swaps the feet: at mid-stance against mid-swing the two can stand in the
 * same place, but one foot goes forward about the hips at twice the walking
 * speed where the other went back at it. */
#define CYCLE_FOOT_MATCH 0.5f
#define CYCLE_FOOT_SPEED 1.0f

/* ---- legs ------------------------------------------------------------------- */

/* Model-space rest matrix of a joint (walks the parent chain, no allocation). */
static sk_mat4 rest_model(const sk_skeleton *skel, int32_t j) {
    sk_mat4 m = sk_mat4_from_transform(&skel->rest[j]);
    for (int32_t p = skel->parents[j]; p >= 0; p = skel->parents[p]) {
        sk_mat4 pm = sk_mat4_from_transform(&skel->rest[p]);
        m = sk_mat4_mul(&pm, &m);
    }
    return m;
}

static sk_vec3 mat_pos(const sk_mat4 *m) { return sk_mat4_transform_point(m, sk_vec3_make(0, 0, 0)); }

static bool is_ancestor(const sk_skeleton *skel, int32_t anc, int32_t j) {
    for (int32_t p = skel->parents[j]; p >= 0; p = skel->parents[p])
        if (p == anc) return true;
    return false;
}

static const char *jname(const sk_skeleton *skel, int32_t j) {
    return (j >= 0 && (uint32_t)j < skel->joint_count && skel->names[j][0]) ? skel->names[j] : "(unnamed)";
}

static float chain_length(const sk_skeleton *skel, const sk_leg_desc *leg) {
    sk_mat4 h = rest_model(skel, leg->hip), k = rest_model(skel, leg->knee), a = rest_model(skel, leg->ankle);
    return sk_vec3_length(sk_vec3_sub(mat_pos(&k), mat_pos(&h))) + sk_vec3_length(sk_vec3_sub(mat_pos(&a), mat_pos(&k)));
}

sk_result sk_leg_default_points(const sk_skeleton *skel, sk_leg_desc *leg, sk_error *err) {
    if (!skel || !leg) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "leg: NULL skeleton or leg");
    int32_t n = (int32_t)skel->joint_count;
    const char *ln = leg->name[0] ? leg->name : "leg";
    int32_t js[4] = {leg->hip, leg->knee, leg->ankle, leg->toe};
    static const char *const roles[4] = {"hip", "knee", "ankle", "toe"};
    for (int i = 0; i < 4; i++) {
        if (i == 3 && js[i] == -1) continue;
        if (js[i] < 0 || js[i] >= n)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %s joint %d out of range (skeleton has %d joints)",
                                ln, roles[i], js[i], n);
    }
    for (int i = 0; i < 3; i++) {
        if (i == 2 && leg->toe < 0) break;
        if (!is_ancestor(skel, js[i], js[i + 1]))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "%s: joints not in a chain: %s \"%s\" is not below %s \"%s\"", ln, roles[i + 1],
                                jname(skel, js[i + 1]), roles[i], jname(skel, js[i]));
    }
    if ((leg->heel_set && !skm_vec3_finite(leg->heel)) || (leg->toe_tip_set && !skm_vec3_finite(leg->toe_tip)))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: heel or toe point is not finite", ln);
    if (leg->heel_set && leg->toe_tip_set) return SK_OK;

    sk_mat4 ma = rest_model(skel, leg->ankle);
    sk_vec3 A = mat_pos(&ma);
    int32_t tj = leg->toe >= 0 ? leg->toe : leg->ankle;
    sk_mat4 mt = rest_model(skel, tj);
    sk_vec3 T = mat_pos(&mt);
    int32_t child = -1;
    if (leg->toe >= 0)
        for (int32_t c = leg->toe + 1; c < n; c++)
            if (skel->parents[c] == leg->toe) { child = c; break; }
    sk_vec3 C = T;
    if (child >= 0) { sk_mat4 mc = rest_model(skel, child); C = mat_pos(&mc); }
    /* The lowest rest height of the foot: the sole is taken to be there. */
    float g = fminf(A.y, fminf(T.y, C.y));
    float leglen = chain_length(skel, leg);
    sk_vec3 fwd = sk_vec3_make(T.x - A.x, 0, T.z - A.z);
    float flen = skm_vec3_len(fwd);
    if (leg->toe < 0 || flen < 1e-4f * (leglen > 0 ? leglen : 1)) {
        fwd = sk_vec3_make(0, 0, 1);   /* no toe: assume the rig faces +Z */
        flen = 0.15f * leglen;
    } else {
        fwd = sk_vec3_scale(fwd, 1.0f / flen);
    }
    sk_vec3 tip;
    if (child >= 0 && skm_vec3_len(sk_vec3_make(C.x - T.x, 0, C.z - T.z)) > 1e-4f * flen)
        tip = sk_vec3_make(C.x, g, C.z);
    else if (leg->toe >= 0)
        tip = sk_vec3_add(sk_vec3_make(T.x, g, T.z), sk_vec3_scale(fwd, 0.4f * flen));
    else
        tip = sk_vec3_add(sk_vec3_make(A.x, g, A.z), sk_vec3_scale(fwd, flen));
    sk_vec3 heel = sk_vec3_sub(sk_vec3_make(A.x, g, A.z), sk_vec3_scale(fwd, 0.2f * flen));
    sk_mat4 inv;
    if (!leg->heel_set) {
        if (!sk_mat4_invert_affine(&ma, &inv))
            return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: ankle \"%s\" has a singular rest transform", ln,
                                jname(skel, leg->ankle));
        leg->heel = sk_mat4_transform_point(&inv, heel);
        leg->heel_set = true;
    }
    if (!leg->toe_tip_set) {
        if (!sk_mat4_invert_affine(&mt, &inv))
            return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: toe \"%s\" has a singular rest transform", ln,
                                jname(skel, tj));
        leg->toe_tip = sk_mat4_transform_point(&inv, tip);
        leg->toe_tip_set = true;
    }
    if (!skm_vec3_finite(leg->heel) || !skm_vec3_finite(leg->toe_tip))
        return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: rest pose gives a non-finite heel or toe point", ln);
    return SK_OK;
}

/* ---- heel and toe from the skinned mesh's sole ---------------------------------- */

/* Per leg: the foot's skinned rest vertices (model space) are scanned twice:
 * pass 0 finds the lowest height, pass 1 the sole's extent along forward. */
typedef struct sole_scan {
    int32_t ankle, toe;
    sk_vec3 fwd, side;          /* horizontal unit forward, and its perpendicular */
    float tol;                  /* sole height */
    float ground;               /* lowest height */
    float smin, smax, lat;      /* extent along fwd, sum of the lateral coordinate */
    uint32_t count, sole_count;
} sole_scan;

static void sole_visit(sole_scan *sc, uint32_t nl, sk_vec3 p, const int32_t *joint, const float *w, uint32_t ni,
                       int pass) {
    float total = 0;
    for (uint32_t k = 0; k < ni; k++) total += w[k] > 0 ? w[k] : 0;
    if (!(total > 0)) return;
    for (uint32_t l = 0; l < nl; l++) {
        sole_scan *S = &sc[l];
        float wf = 0;
        for (uint32_t k = 0; k < ni; k++)
            if (w[k] > 0 && (joint[k] == S->ankle || (S->toe >= 0 && joint[k] == S->toe))) wf += w[k];
        if (wf < 0.5f * total) continue;
        if (pass == 0) {
            S->ground = S->count ? fminf(S->ground, p.y) : p.y;
            S->count++;
        } else if (p.y <= S->ground + S->tol) {
            float a = sk_vec3_dot(p, S->fwd);
            S->smin = S->sole_count ? fminf(S->smin, a) : a;
            S->smax = S->sole_count ? fmaxf(S->smax, a) : a;
            S->lat += sk_vec3_dot(p, S->side);
            S->sole_count++;
        }
    }
}

sk_result sk_leg_points_from_mesh(const sk_asset *asset, sk_leg_desc *legs, uint32_t n,
                                  const sk_leg_points_options *opts, sk_leg_points_source *sources, sk_error *err) {
    if (!asset || !asset->skeleton || (n && !legs))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_leg_points_from_mesh: NULL asset or legs");
    if (n > SK_ANALYSIS_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_leg_points_from_mesh: %u legs (at most %u)", n,
                            SK_ANALYSIS_MAX_LEGS);
    if (opts && (!isfinite(opts->sole_height) || opts->sole_height < 0))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_leg_points_from_mesh: sole_height %g", opts->sole_height);
    const sk_skeleton *skel = asset->skeleton;
    sk_leg_desc fallback[SK_ANALYSIS_MAX_LEGS];
    sole_scan sc[SK_ANALYSIS_MAX_LEGS];
    uint32_t todo = 0;
    for (uint32_t l = 0; l < n; l++) {
        fallback[l] = legs[l];
        sk_result r = sk_leg_default_points(skel, &fallback[l], err); /* validates; the skeleton's points */
        if (r != SK_OK) return r;
        if (sources) sources[l] = (legs[l].heel_set && legs[l].toe_tip_set) ? SK_LEG_POINTS_MANUAL : SK_LEG_POINTS_SKELETON;
        sole_scan *S = &sc[l];
        memset(S, 0, sizeof *S);
        S->ankle = legs[l].heel_set && legs[l].toe_tip_set ? -1 : legs[l].ankle; /* -1: nothing to find */
        S->toe = legs[l].toe;
        if (S->ankle < 0) continue;
        todo++;
        sk_mat4 ma = rest_model(skel, legs[l].ankle);
        sk_vec3 A = mat_pos(&ma), f = sk_vec3_make(0, 0, 1);
        float leglen = chain_length(skel, &legs[l]);
        if (legs[l].toe >= 0) {
            sk_mat4 mt = rest_model(skel, legs[l].toe);
            sk_vec3 T = mat_pos(&mt), d = sk_vec3_make(T.x - A.x, 0, T.z - A.z);
            float len = skm_vec3_len(d);
            if (len > 1e-4f * (leglen > 0 ? leglen : 1)) f = sk_vec3_scale(d, 1.0f / len);
        }
        S->fwd = f;
        S->side = sk_vec3_make(f.z, 0, -f.x);
        S->tol = opts && opts->sole_height > 0 ? opts->sole_height : 0.012f * leglen;
    }
    sk_result r = SK_OK;
    const sk_allocator *a = sk_allocator_or_default(NULL);
    uint32_t nj = skel->joint_count, max_skin = 0;
    for (uint32_t s = 0; s < asset->skin_count; s++)
        if (asset->skins[s].joint_count > max_skin) max_skin = asset->skins[s].joint_count;
    sk_pose pose = {0};
    sk_mat4 *model = NULL, *palette = NULL;
    size_t model_bytes = (size_t)(nj ? nj : 1) * sizeof(sk_mat4), pal_bytes = (size_t)(max_skin ? max_skin : 1) * sizeof(sk_mat4);
    if (todo && max_skin && asset->joint_mesh && asset->joint_skin) {
        if ((r = sk_asset_validate(asset, err)) != SK_OK) return r;
        if ((r = sk_pose_alloc(skel, a, &pose, err)) != SK_OK) return r;
        model = sk_alloc(a, model_bytes);
        palette = sk_alloc(a, pal_bytes);
        if (!model || !palette) {
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_leg_points_from_mesh: out of memory");
            goto done;
        }
        if ((r = sk_pose_rest(skel, &pose, err)) != SK_OK) goto done;
        if ((r = sk_local_to_model(skel, &pose, NULL, model, nj, err)) != SK_OK) goto done;
        for (int pass = 0; pass < 2; pass++) {
            for (uint32_t j = 0; j < nj; j++) {
                int32_t mi = asset->joint_mesh[j], si = asset->joint_skin[j];
                if (mi < 0 || si < 0) continue;
                const sk_mesh *mesh = &asset->meshes[mi];
                const sk_skin *skin = &asset->skins[si];
                const float *mw = skel->weight_count[j] && pose.weights ? pose.weights + skel->weight_offset[j]
                                                                       : mesh->default_weights;
                if ((r = sk_skin_palette(skin, model, nj, palette, max_skin, err)) != SK_OK) goto done;
                for (uint32_t p = 0; p < mesh->primitive_count; p++) {
                    const sk_primitive *prim = &mesh->primitives[p];
                    uint32_t ni = prim->influence_count;
                    if (prim->mode != 4 || prim->missing_data || !ni || ni > 8) continue;
                    for (uint32_t v = 0; v < prim->vertex_count; v++) {
                        int32_t jt[8];
                        const float *w = prim->weights + (size_t)v * ni;
                        for (uint32_t k = 0; k < ni; k++) {
                            uint16_t sj = prim->joints[(size_t)v * ni + k];
                            jt[k] = sj < skin->joint_count ? (int32_t)skin->joints[sj] : -1;
                        }
                        sk_vec3 pos;
                        if (!sk_primitive_vertex_position(prim, v, mw, palette, skin->joint_count, &model[j], &pos) ||
                            !skm_vec3_finite(pos))
                            continue;
                        sole_visit(sc, n, pos, jt, w, ni, pass);
                    }
                }
            }
        }
    }
    for (uint32_t l = 0; l < n; l++) {
        sole_scan *S = &sc[l];
        sk_leg_desc *leg = &legs[l];
        if (S->ankle < 0) continue;
        if (!S->sole_count || !(S->smax > S->smin)) {
            *leg = fallback[l];
            continue;
        }
        float lat = S->lat / (float)S->sole_count;
        sk_vec3 base = sk_vec3_add(sk_vec3_scale(S->side, lat), sk_vec3_make(0, S->ground, 0));
        sk_vec3 heel = sk_vec3_add(base, sk_vec3_scale(S->fwd, S->smin));
        sk_vec3 tip = sk_vec3_add(base, sk_vec3_scale(S->fwd, S->smax));
        sk_mat4 ma = rest_model(skel, leg->ankle), mt = rest_model(skel, leg->toe >= 0 ? leg->toe : leg->ankle), inv;
        sk_vec3 hl = leg->heel, tl = leg->toe_tip;
        if (!leg->heel_set && sk_mat4_invert_affine(&ma, &inv)) hl = sk_mat4_transform_point(&inv, heel);
        else if (!leg->heel_set) hl = fallback[l].heel;
        if (!leg->toe_tip_set && sk_mat4_invert_affine(&mt, &inv)) tl = sk_mat4_transform_point(&inv, tip);
        else if (!leg->toe_tip_set) tl = fallback[l].toe_tip;
        if (!skm_vec3_finite(hl) || !skm_vec3_finite(tl)) {
            *leg = fallback[l];
            continue;
        }
        leg->heel = hl;
        leg->toe_tip = tl;
        leg->heel_set = leg->toe_tip_set = true;
        if (sources) sources[l] = SK_LEG_POINTS_MESH;
    }
    r = SK_OK;
done:
    if (model || palette || pose.weights || pose.local) sk_pose_free(&pose, a);
    if (model) sk_free(a, model, model_bytes);
    if (palette) sk_free(a, palette, pal_bytes);
    return r;
}

/* ---- result memory ------------------------------------------------------------ */

sk_result sk_motion_analysis_create(uint32_t leg_count, uint32_t sample_count, const sk_allocator *alloc,
                                    sk_motion_analysis **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis: NULL out");
    *out = NULL;
    if (leg_count < 1 || leg_count > SK_ANALYSIS_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis: %u legs (1 to %u)", leg_count,
                            SK_ANALYSIS_MAX_LEGS);
    if (sample_count < SK_ANALYSIS_MIN_SAMPLES || sample_count > SK_ANALYSIS_MAX_SAMPLES)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis: %u samples (%u to %u)", sample_count,
                            SK_ANALYSIS_MIN_SAMPLES, SK_ANALYSIS_MAX_SAMPLES);
    /* Bounded by the limits above: no overflow. */
    size_t per_leg = (size_t)sample_count * (5 * sizeof(sk_vec3) + 3 * sizeof(float));
    size_t size = sizeof(sk_motion_analysis) + leg_count * sizeof(sk_leg_analysis) + leg_count * per_leg;
    char *mem = sk_alloc(alloc, size);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "motion analysis: out of memory");
    sk_motion_analysis *a = (sk_motion_analysis *)mem;
    a->allocator = *sk_allocator_or_default(alloc);
    a->allocation_size = size;
    a->leg_count = leg_count;
    a->sample_count = sample_count;
    a->legs = (sk_leg_analysis *)(mem + sizeof *a);
    char *p = (char *)(a->legs + leg_count);
    for (uint32_t l = 0; l < leg_count; l++) {
        sk_leg_analysis *L = &a->legs[l];
        sk_vec3 **v[5] = {&L->heel, &L->toe, &L->middle, &L->footbase, &L->normalized_footbase};
        for (int i = 0; i < 5; i++) { *v[i] = (sk_vec3 *)p; p += sample_count * sizeof(sk_vec3); }
        float **f[3] = {&L->heel_height, &L->toe_height, &L->balance};
        for (int i = 0; i < 3; i++) { *f[i] = (float *)p; p += sample_count * sizeof(float); }
    }
    *out = a;
    return SK_OK;
}

void sk_motion_analysis_destroy(sk_motion_analysis *a) {
    if (!a) return;
    sk_allocator al = a->allocator;
    sk_free(&al, a, a->allocation_size);
}

/* ---- analysis ------------------------------------------------------------------- */

static uint32_t wrapi(int64_t i, uint32_t n) {
    int64_t r = i % (int64_t)n;
    return (uint32_t)(r < 0 ? r + n : r);
}

static sk_vec3 ground(sk_vec3 v) { return sk_vec3_make(v.x, 0, v.z); }

/* (19)-(22) from the stance position and the stride: Q turns the stride
 * direction onto +Z (a yaw). z is divided by the stride distance: the seed's
 * "stridewidth" in (22) means it. */
static void normalize_footbase(sk_leg_analysis *L, uint32_t N) {
    uint32_t st = L->stance_sample;
    double inv = 1.0 / N;
    float yaw = atan2f(L->stride_direction.x, L->stride_direction.z);
    float cy = cosf(yaw), sy = sinf(yaw);
    for (uint32_t s = 0; s < N; s++) {
        float ct = skl_wrap01(((double)s - st) * inv);                             /* (19) */
        sk_vec3 ref = sk_vec3_sub(L->stance_position,
                                  sk_vec3_scale(L->stride_direction, L->stride_velocity * ct)); /* (20) */
        sk_vec3 q = sk_vec3_sub(L->footbase[s], ref);                           /* (21) */
        sk_vec3 r = sk_vec3_make(q.x * cy - q.z * sy, q.y, q.x * sy + q.z * cy);
        r.z /= L->stride_distance;                                             /* (22) */
        L->normalized_footbase[s] = r;
    }
}

static sk_result analyze_leg(sk_motion_analysis *res, sk_leg_analysis *L, const sk_motion_analysis_options *o,
                             const skl_leg_ext *ext, sk_error *err) {
    uint32_t N = res->sample_count;
    float alpha_bal = o->balance_alpha > 0 ? o->balance_alpha : 20.0f;
    float tol_frac = o->speed_tolerance > 0 ? o->speed_tolerance : 0.25f;
    float roll = o->min_roll;

    /* Heights above each point's lowest height over the cycle. */
    float hmin = INFINITY, tmin = INFINITY;
    for (uint32_t s = 0; s < N; s++) {
        hmin = fminf(hmin, L->heel[s].y);
        tmin = fminf(tmin, L->toe[s].y);
    }
    L->heel_ground = hmin;
    L->toe_ground = tmin;
    float hmax = 0;
    for (uint32_t s = 0; s < N; s++) {
        L->heel_height[s] = L->heel[s].y - hmin;
        L->toe_height[s] = L->toe[s].y - tmin;
        hmax = fmaxf(hmax, fmaxf(L->heel_height[s], L->toe_height[s]));
    }
    /* (1)-(2): middle curve on the ground; (3): its mean c. */
    double cx = 0, cz = 0;
    for (uint32_t s = 0; s < N; s++) {
        L->middle[s] = ground(sk_vec3_scale(sk_vec3_add(L->heel[s], L->toe[s]), 0.5f));
        cx += L->middle[s].x;
        cz += L->middle[s].z;
    }
    L->center = sk_vec3_make((float)(cx / N), 0, (float)(cz / N));
    /* (4)-(5): a farthest from c, b farthest from a; (6): axis = b - a. */
    uint32_t ia = 0, ib = 0;
    float best = -1;
    for (uint32_t s = 0; s < N; s++) {
        float d = skm_vec3_len(sk_vec3_sub(L->middle[s], L->center));
        if (d > best) { best = d; ia = s; }
    }
    best = -1;
    for (uint32_t s = 0; s < N; s++) {
        float d = skm_vec3_len(sk_vec3_sub(L->middle[s], L->middle[ia]));
        if (d > best) { best = d; ib = s; }
    }
    L->a = L->middle[ia];
    L->b = L->middle[ib];
    L->axis = sk_vec3_sub(L->b, L->a);
    float beta = skm_vec3_len(L->axis);
    float moved = 1e-3f * L->leg_length;
    if (!(beta > moved) || !(hmax > moved))
        return sk_error_set(err, SK_ERR_INVALID_DATA,
                            "%s: the foot does not move (%.3g m along the ground, %.3g m up): no step to analyse",
                            L->name, (double)beta, (double)hmax);
    sk_vec3 axis_hat = sk_vec3_scale(L->axis, 1.0f / beta);

    /* (7): alpha = the greatest heel/toe height, beta = |b - a|. The heights here are above
     * each point's lowest where it moves over the ground slower than the root (a retargeted leg
     * of other proportions can swing its foot under the floor it stands on: measured from that
     * lowest, the swing's low point cost least), and a point under its ground is as far from it
     * as one above; where no sample is that slow (a clip in place), above the cycle's lowest as
     * everywhere else. */
    float alpha = hmax, hs = hmin, ts = tmin;
    {
        float ux = -ext->root_velocity.x, uz = -ext->root_velocity.z, us = sqrtf(ux * ux + uz * uz);
        if (us * (float)(N * ext->dt) > 0.05f * L->leg_length) {
            const double inv2 = 1.0 / (2.0 * ext->K * ext->dt);
            float h2 = INFINITY, t2 = INFINITY;
            for (uint32_t s = 0; s < N; s++) {
                size_t x = (size_t)s + ext->X;
                if (skl_rel_speed(ext->heel, x, ext->K, inv2, ux, uz) <= us) h2 = fminf(h2, L->heel[s].y);
                if (skl_rel_speed(ext->toe, x, ext->K, inv2, ux, uz) <= us) t2 = fminf(t2, L->toe[s].y);
            }
            if (h2 < INFINITY) hs = h2;
            if (t2 < INFINITY) ts = t2;
        }
    }
    uint32_t st = 0;
    float best_cost = INFINITY;
    for (uint32_t s = 0; s < N; s++) {
        float cost = fmaxf(fabsf(L->heel[s].y - hs), fabsf(L->toe[s].y - ts)) / alpha +
                     fabsf(sk_vec3_dot(sk_vec3_sub(L->middle[s], L->center), axis_hat)) / beta;
        if (cost < best_cost) { best_cost = cost; st = s; }
    }
    /* Three times at most: when the planted phase the keytimes find
     * (foot-land .. foot-lift) does not hold the stance sample (a capture
     * whose cost (7) is least just after the foot lifted), the stance moves
     * to the planted phase's middle and (8)-(11) and the keytimes are found
     * again there; a third miss leaves the planted phase empty at the
     * stance. foot-land <= stance <= foot-lift always holds. A planted
     * phase shorter than SHORT_PLANTED of the cycle (a retargeted foot
     * standing flat above its rolls, found at a roll) is looked for again
     * from the first stance with the still ankle and ball counting as
     * planted (skl_analysis_keytimes' still_first), and the longer of the
     * two kept (docs/locomotion.md, "A flat foot above its rolls"). */
    float base = o->contact_height > 0 ? o->contact_height : 0.012f * L->leg_length;
    skl_keytimes kt;
    bool still_first = false;
    const uint32_t st0 = st;
    int attempt = 0;
    int32_t first_len = 0;
    for (int pass = 0;; pass++) {
        L->stance_sample = st;
        L->stance_time = (float)st / (float)N;

        /* (8)-(9): foot direction and length at stance, on the ground. */
        sk_vec3 d = ground(sk_vec3_sub(L->toe[st], L->heel[st]));
        L->foot_length = skm_vec3_len(d);
        if (!(L->foot_length > 1e-6f))
            return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: heel and toe points coincide (no foot length)", L->name);
        L->foot_direction = d;

        /* (10)-(11): balance and footbase per sample. */
        for (uint32_t s = 0; s < N; s++) {
            float bal = atanf((L->heel_height[s] - L->toe_height[s]) / L->foot_length * alpha_bal) / SKM_PI + 0.5f;
            L->balance[s] = bal;
            L->footbase[s] = sk_vec3_add(sk_vec3_scale(L->heel[s], 1 - bal),
                                         sk_vec3_scale(sk_vec3_sub(L->toe[s], L->foot_direction), bal));
        }

        /* Keytimes (§3.1), as sample offsets from stance. */
        /* Contact threshold: the option, or 1.2% of the leg (1 cm for the
         * mannequin and the CMU subjects), above the point's lowest height over
         * the half cycle either side of stance (a capture trembles by
         * millimetres and its floor is not level; analysis_keytimes.h). */
        L->heel_contact = base;
        L->toe_contact = base;
        sk_result kr =
            skl_analysis_keytimes(L, N, ext, base, tol_frac, alpha_bal, o->still_band, still_first, &res->allocator, &kt, err);
        if (kr != SK_OK) return kr;
        int32_t pb = kt.planted_begin > kt.heel_strike ? kt.planted_begin : kt.heel_strike;
        int32_t pe = kt.planted_end < kt.heel_off ? kt.planted_end : kt.heel_off;
        pb = pb > kt.toe_strike ? pb : kt.toe_strike;
        pe = pe < kt.toe_off ? pe : kt.toe_off;
        bool done = (pb <= 0 && pe >= 0) || pb > pe;
        if (!done && pass == 2) { /* still outside: the planted phase collapses onto the stance (never a
                                   * phase that leaves the stance out, which a runtime would read as the
                                   * whole cycle) */
            kt.planted_begin = kt.planted_end = 0;
            if (kt.heel_strike > 0) kt.heel_strike = 0;
            if (kt.toe_strike > 0) kt.toe_strike = 0;
            if (kt.heel_off < 0) kt.heel_off = 0;
            if (kt.toe_off < 0) kt.toe_off = 0;
            pb = pe = 0;
            done = true;
        }
        if (!done) {
            st = wrapi((int64_t)st + (pb + pe) / 2, N);
            continue;
        }
        int32_t len = pe - pb;
        if (attempt == 0 && (double)len < SHORT_PLANTED * N) { /* again, the still ankle and ball first */
            attempt = 1, first_len = len, still_first = true, st = st0, pass = -1;
            continue;
        }
        if (attempt == 1 && len <= first_len) { /* no longer: the first attempt's, found again */
            attempt = 2, still_first = false, st = st0, pass = -1;
            continue;
        }
        break;
    }
    int32_t heel_off = kt.heel_off, toe_off = kt.toe_off, heel_strike = kt.heel_strike, toe_strike = kt.toe_strike;
    int32_t lse = kt.planted_end, lsb = kt.planted_begin;
    double inv = 1.0 / N;
    /* The seed's rules: planted (foot-land .. foot-lift) while heel and toe
     * are both down and the footbase moves at the stance speed; on the
     * ground (foot-strike .. foot-off) while either is down. */
    double lift = fmin(fmin(heel_off, toe_off), lse) * inv;
    double off = fmax(heel_off, toe_off) * inv;
    double post = fmax(lift + roll, off);
    double land = fmax(fmax(heel_strike, toe_strike), lsb) * inv;
    double strike = fmin(heel_strike, toe_strike) * inv;
    double pre = fmin(land - roll, strike); /* the seed's second "post-foot-lift" is pre-foot-land */
    double s0 = (double)st * inv;
    L->heel_off = skl_wrap01(s0 + heel_off * inv);
    L->toe_off = skl_wrap01(s0 + toe_off * inv);
    L->linear_speed_end = skl_wrap01(s0 + lse * inv);
    L->foot_lift = skl_wrap01(s0 + lift);
    L->foot_off = skl_wrap01(s0 + off);
    L->post_foot_lift = skl_wrap01(s0 + post);
    L->heel_strike = skl_wrap01(s0 + heel_strike * inv);
    L->toe_strike = skl_wrap01(s0 + toe_strike * inv);
    L->linear_speed_begin = skl_wrap01(s0 + lsb * inv);
    L->foot_land = skl_wrap01(s0 + land);
    L->foot_strike = skl_wrap01(s0 + strike);
    L->pre_foot_land = skl_wrap01(s0 + pre);
    L->stance_fraction = (float)(off - strike);

    /* (12)-(15): stride from foot-strike to foot-off, on the ground. */
    int32_t off_i = (int32_t)llround(off * N), strike_i = (int32_t)llround(strike * N);
    if (o->stride_planted && lse > lsb) { /* foot-land .. foot-lift instead (see the option) */
        off_i = lse;
        strike_i = lsb;
    }
    sk_vec3 disp = ground(sk_vec3_sub(L->footbase[wrapi((int64_t)st + off_i, N)],
                                      L->footbase[wrapi((int64_t)st + strike_i, N)]));
    L->stride_displacement = disp;
    float dlen = skm_vec3_len(disp);
    double dt = (double)(off_i - strike_i) * inv; /* cycles */
    L->stance_position = L->footbase[st];
    if (!(dt > 0) || !(dlen > 1e-6f * L->leg_length)) {
        /* No contact stride: the foot does not move on the ground, or its planted phase
         * collapsed onto the stance (pass 2 above: a foot of other proportions that never
         * holds still at the stance speed). The footprints may give one; sk_motion_analyze
         * refuses the leg when they do not (no_contact_stride). */
        L->stride_velocity = 0.0f;
        L->stride_distance = 0.0f;
        L->stride_direction = sk_vec3_make(0, 0, 0);
        L->stride_source = SK_STRIDE_CONTACT;
        return SK_OK;
    }
    L->stride_velocity = (float)(dlen / dt);
    L->stride_direction = sk_vec3_scale(disp, -1.0f / dlen);
    L->stride_distance = L->stride_velocity; /* x 1 cycle */
    L->stride_source = SK_STRIDE_CONTACT;

    normalize_footbase(L, N);
    return SK_OK;
}

static uint32_t clip_keys(const sk_clip *clip) {
    uint32_t keys = 0;
    sk_track_info ti;
    for (uint32_t i = 0; i < sk_clip_track_count(clip); i++)
        if (sk_clip_track_info(clip, i, &ti) && ti.key_count > keys) keys = ti.key_count;
    return keys;
}

static uint32_t default_samples(const sk_clip *clip, double cycle) {
    uint32_t keys = clip_keys(clip);
    double clip_dur = sk_clip_duration(clip);
    double kn = keys > 1 ? 4.0 * (keys - 1) * fmin(1.0, cycle / clip_dur) : 0;
    uint32_t n = (uint32_t)fmin(kn + 0.5, (double)SK_ANALYSIS_MAX_SAMPLES);
    if (n < 60) n = 60;
    if (n > SK_ANALYSIS_MAX_SAMPLES) n = SK_ANALYSIS_MAX_SAMPLES;
    return n;
}

/* The footbase (10)-(11) in the clip's own space at clip time t, with the
 * leg's foot and ground heights from its analysis. need: the joints whose
 * model matrices the analysis reads (legs_need). */
static sk_result footbase_at(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *leg,
                             const sk_leg_analysis *L, float alpha_bal, double t, sk_pose *pose, const bool *need,
                             sk_mat4 *model, sk_vec3 *out, sk_error *err) {
    sk_result r = sk_clip_sample(clip, skel, t, SK_LOOP_CLAMP, pose, err);
    if (r == SK_OK) r = sk_local_to_model_masked(skel, pose, NULL, 0, 0, need, model, skel->joint_count, err);
    if (r != SK_OK) return r;
    sk_vec3 heel = sk_mat4_transform_point(&model[leg->ankle], leg->heel);
    sk_vec3 toe = sk_mat4_transform_point(&model[leg->toe >= 0 ? leg->toe : leg->ankle], leg->toe_tip);
    /* heel height - toe height above their grounds (a common vertical shift cancels) */
    float dh = (heel.y - L->heel_ground) - (toe.y - L->toe_ground);
    float bal = atanf(dh / L->foot_length * alpha_bal) / SKM_PI + 0.5f;
    *out = sk_vec3_add(sk_vec3_scale(heel, 1 - bal), sk_vec3_scale(sk_vec3_sub(toe, L->foot_direction), bal));
    return SK_OK;
}

/* The stride from footprints (SK_STRIDE_FOOTPRINTS): a departure from the
 * seed's (12)-(13), which measure how fast the planted footbase moves in
 * character space between foot-strike and foot-off. In the CMU walks the
 * planted feet creep forward 1.3-2.6 cm per contact (and the heel and toe
 * roll moves the footbase at both ends), so that measure falls 4-11% short of
 * the distance the clip travels. The footprints are where the foot stands at
 * its stance time in this cycle and in the next (or the previous) one, both
 * sampled from the clip; their distance over one cycle is the walking speed
 * as footprints on the floor give it. (14)-(15) then follow as in the seed:
 * direction = the way the footprints advance, distance = velocity x 1 cycle.
 * Leaves the contact stride when the adjacent cycle is not in the clip or, for
 * SK_STRIDE_AUTO, the rules of sk_stride_source say CONTACT. */
static sk_result footprint_stride(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *leg,
                                  sk_motion_analysis *res, sk_leg_analysis *L, const sk_motion_analysis_options *o,
                                  double t_start, double dur, sk_pose *pose, const bool *need, sk_mat4 *model,
                                  sk_error *err) {
    if (o->stride_source == SK_STRIDE_CONTACT) return SK_OK;
    if (o->stride_source == SK_STRIDE_AUTO &&
        (!(o->cycle_end > 0) ||
         (double)skm_vec3_len(res->root_velocity) * dur < 0.5 * (double)L->stride_velocity))
        return SK_OK;
    uint32_t N = res->sample_count, st = L->stance_sample;
    uint32_t fs = o->backward ? (N - st) % N : st; /* the forward sample of the stance */
    double clip_dur = sk_clip_duration(clip);
    double t1 = t_start + dur * (double)fs / (double)N, t2;
    if (t1 + dur <= clip_dur * (1 + 1e-9)) t2 = fmin(t1 + dur, clip_dur);
    else if (t1 - dur >= -1e-9 * clip_dur) t2 = fmax(t1 - dur, 0.0);
    else return SK_OK;
    float alpha_bal = o->balance_alpha > 0 ? o->balance_alpha : 20.0f;
    sk_vec3 p1, p2;
    sk_result r = footbase_at(skel, clip, leg, L, alpha_bal, t1, pose, need, model, &p1, err);
    if (r == SK_OK) r = footbase_at(skel, clip, leg, L, alpha_bal, t2, pose, need, model, &p2, err);
    if (r != SK_OK) return r;
    sk_vec3 step = ground(sk_vec3_sub(p2, p1)); /* forward in clip time: one cycle later */
    if (t2 < t1) step = sk_vec3_scale(step, -1);
    if (o->backward) step = sk_vec3_scale(step, -1);
    float len = skm_vec3_len(step);
    if (!skm_vec3_finite(step) || !(len > 1e-6f * L->leg_length)) return SK_OK;
    L->stride_velocity = len;
    L->stride_distance = len;
    L->stride_direction = sk_vec3_scale(step, 1.0f / len);
    L->stride_displacement = sk_vec3_scale(step, -1.0f);
    L->stride_source = SK_STRIDE_FOOTPRINTS;
    normalize_footbase(L, N);
    return SK_OK;
}

/* A leg's heel and toe points, ball (the toe joint) and ankle over samples
 * -X .. N + X (skl_leg_ext; hx[s], tx[s], bx[s], ax[s]): inside the cycle
 * its samples (bx and ax there are filled already); outside, for a cycle cut from a longer clip,
 * sampled from the clip where it goes on (shifted by the root motion v as
 * the cycle's samples are), otherwise (a loop, or past the clip's ends) the
 * cycle's own samples wrapped. */
static sk_result extend_leg(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *leg,
                            const sk_leg_analysis *L, uint32_t N, uint32_t X, double t_start, double dur, sk_vec3 v,
                            bool backward, bool cut, sk_pose *pose, const bool *need, sk_mat4 *model, sk_vec3 *hx,
                            sk_vec3 *tx, sk_vec3 *bx, sk_vec3 *ax, sk_error *err) {
    double clip_dur = sk_clip_duration(clip);
    for (uint32_t s = 0; s < N; s++) hx[s] = L->heel[s], tx[s] = L->toe[s];
    for (int64_t s = -(int64_t)X; s <= (int64_t)(N + X); s++) {
        if (s == 0) s = N;
        int64_t f = backward ? (int64_t)N - s : s; /* the forward sample */
        double t = t_start + dur * (double)f / (double)N;
        if (cut && t >= 0 && t <= clip_dur) {
            sk_result r = sk_clip_sample(clip, skel, t, SK_LOOP_CLAMP, pose, err);
            if (r == SK_OK) r = sk_local_to_model_masked(skel, pose, NULL, 0, 0, need, model, skel->joint_count, err);
            if (r != SK_OK) return r;
            sk_vec3 shift = sk_vec3_scale(v, (float)(dur * (double)f / (double)N));
            hx[s] = sk_vec3_sub(sk_mat4_transform_point(&model[leg->ankle], leg->heel), shift);
            tx[s] = sk_vec3_sub(sk_mat4_transform_point(&model[leg->toe >= 0 ? leg->toe : leg->ankle], leg->toe_tip),
                                shift);
            bx[s] = leg->toe >= 0 ? sk_vec3_sub(mat_pos(&model[leg->toe]), shift) : tx[s];
            ax[s] = sk_vec3_sub(mat_pos(&model[leg->ankle]), shift);
            if (!skm_vec3_finite(hx[s]) || !skm_vec3_finite(tx[s]) || !skm_vec3_finite(bx[s]))
                return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: the pose at t = %g s is not finite", L->name, t);
        } else {
            uint32_t w = wrapi(s, N);
            hx[s] = hx[w], tx[s] = tx[w], bx[s] = bx[w], ax[s] = ax[w];
        }
    }
    return SK_OK;
}

sk_result sk_motion_analyze(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs, uint32_t leg_count,
                            const sk_motion_analysis_options *opt, const sk_allocator *alloc,
                            sk_motion_analysis **out, sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis: NULL out");
    *out = NULL;
    if (!skel || !clip || !legs)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "motion analysis: NULL skeleton, clip or legs");
    sk_motion_analysis_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    const char *cname = sk_clip_name(clip) && sk_clip_name(clip)[0] ? sk_clip_name(clip) : "(unnamed clip)";
    if (!isfinite(o.contact_height) || o.contact_height < 0 || !isfinite(o.balance_alpha) || o.balance_alpha < 0 ||
        !isfinite(o.min_roll) || o.min_roll < 0 || o.min_roll >= 1 || !isfinite(o.speed_tolerance) ||
        o.speed_tolerance < 0 || !isfinite(o.still_band) || o.still_band < 0 || o.still_band >= 0.5f)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "%s: analysis options must be finite and not negative (min_roll below 1 cycle, "
                            "still_band below 0.5)", cname);
    if ((unsigned)o.stride_source > (unsigned)SK_STRIDE_FOOTPRINTS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: stride source %d (0 to 2)", cname, (int)o.stride_source);
    double dur = sk_clip_duration(clip), t_start = 0;
    if (!isfinite(dur) || !(dur > 0))
        return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: zero-length clip (duration %g s): no cycle to analyse",
                            cname, dur);
    if (o.cycle_start != 0 || o.cycle_end != 0) {
        if (!isfinite(o.cycle_start) || !isfinite(o.cycle_end) || o.cycle_start < 0 ||
            !(o.cycle_end > o.cycle_start) || o.cycle_end > dur * (1 + 1e-9))
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "%s: cycle [%g, %g] s is not inside the clip [0, %g] s", cname, o.cycle_start,
                                o.cycle_end, dur);
        t_start = o.cycle_start;
        dur = o.cycle_end - o.cycle_start;
    }
    /* The same bounds whatever chose the cycle (sk_motion_find_cycle has the hour too). */
    if (dur > SK_ANALYSIS_MAX_CYCLE)
        return sk_error_set(err, SK_ERR_LIMIT, "%s: cycle of %g s: longer than an hour", cname, dur);
    if (dur < SK_ANALYSIS_MIN_CYCLE)
        return sk_error_set(err, SK_ERR_INVALID_DATA,
                            "%s: cycle of %g s: shorter than %g s, too short for a step (not a walk cycle?)", cname, dur,
                            SK_ANALYSIS_MIN_CYCLE);
    if (leg_count < 1 || leg_count > SK_ANALYSIS_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %u legs (1 to %u)", cname, leg_count,
                            SK_ANALYSIS_MAX_LEGS);
    sk_leg_desc ld[SK_ANALYSIS_MAX_LEGS];
    for (uint32_t l = 0; l < leg_count; l++) {
        ld[l] = legs[l];
        ld[l].name[SK_LEG_NAME_MAX - 1] = 0;
        if (!ld[l].name[0]) snprintf(ld[l].name, sizeof ld[l].name, "leg %u", l);
        sk_result r = sk_leg_default_points(skel, &ld[l], err);
        if (r != SK_OK) return r;
    }
    uint32_t N = o.sample_count ? o.sample_count : default_samples(clip, dur);
    sk_motion_analysis *res = NULL;
    sk_result r = sk_motion_analysis_create(leg_count, N, alloc, &res, err);
    if (r != SK_OK) return r;
    snprintf(res->clip_name, sizeof res->clip_name, "%s", sk_clip_name(clip) ? sk_clip_name(clip) : "");
    res->backward = o.backward;
    res->cycle_duration = dur;
    res->cycle_start = t_start;

    /* Scratch: one pose, the model matrices, the hip midpoint per sample,
     * and the joints whose model matrices are read (the legs' hips, ankles
     * and toes and their ancestors: forward kinematics of those only). */
    uint32_t J = skel->joint_count;
    /* Velocities at the keytimes: central differences over +-K samples
     * (1/60 of the cycle in all). */
    uint32_t K = (uint32_t)fmax(1.0, floor(N / 120.0 + 0.5)), X = N / 2 + K;
    size_t E = (size_t)N + 2 * X + 1; /* samples -X .. N + X */
    size_t need_pose = (size_t)J * sizeof(sk_transform), need_model = (size_t)J * sizeof(sk_mat4),
           need_hips = ((size_t)N + 1) * sizeof(sk_vec3), need_ext = 2 * E * sizeof(sk_vec3),
           need_ball = 2 * (size_t)leg_count * E * sizeof(sk_vec3);
    size_t scratch = need_pose + need_model + need_hips + need_ext + need_ball + (size_t)J * sizeof(bool);
    char *mem = sk_alloc(alloc, scratch);
    if (!mem) {
        sk_motion_analysis_destroy(res);
        return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", cname);
    }
    sk_transform *local = (sk_transform *)mem;
    sk_mat4 *model = (sk_mat4 *)(mem + need_pose);
    sk_vec3 *hips = (sk_vec3 *)(mem + need_pose + need_model);
    sk_vec3 *ext_mem = (sk_vec3 *)(mem + need_pose + need_model + need_hips);
    sk_vec3 *balls = (sk_vec3 *)(mem + need_pose + need_model + need_hips + need_ext); /* per leg E */
    sk_vec3 *ankles = balls + (size_t)leg_count * E;                                    /* per leg E */
    bool *need = (bool *)(mem + need_pose + need_model + need_hips + need_ext + need_ball);
    sk_pose pose = sk_pose_view(local, J, NULL, 0);
    memset(need, 0, (size_t)J * sizeof(bool));
    for (uint32_t l = 0; l < leg_count; l++) {
        int32_t ends[3] = {ld[l].hip, ld[l].ankle, ld[l].toe};
        for (int k = 0; k < 3; k++)
            for (int32_t j = ends[k]; j >= 0 && !need[j]; j = skel->parents[j]) need[j] = true;
    }

    /* Sample forward at t = d s / N, s = 0..N (the last for the root motion). */
    for (uint32_t s = 0; s <= N && r == SK_OK; s++) {
        double t = t_start + dur * (double)s / (double)N;
        r = sk_clip_sample(clip, skel, t, SK_LOOP_CLAMP, &pose, err);
        if (r == SK_OK) r = sk_local_to_model_masked(skel, &pose, NULL, 0, 0, need, model, J, err);
        if (r != SK_OK) break;
        sk_vec3 hm = sk_vec3_make(0, 0, 0);
        for (uint32_t l = 0; l < leg_count; l++) hm = sk_vec3_add(hm, mat_pos(&model[ld[l].hip]));
        hips[s] = sk_vec3_scale(hm, 1.0f / (float)leg_count);
        bool finite = skm_vec3_finite(hips[s]);
        for (uint32_t l = 0; l < leg_count && s < N; l++) {
            int32_t tj = ld[l].toe >= 0 ? ld[l].toe : ld[l].ankle;
            res->legs[l].heel[s] = sk_mat4_transform_point(&model[ld[l].ankle], ld[l].heel);
            res->legs[l].toe[s] = sk_mat4_transform_point(&model[tj], ld[l].toe_tip);
            balls[(size_t)l * E + X + s] =
                ld[l].toe >= 0 ? mat_pos(&model[ld[l].toe]) : res->legs[l].toe[s];
            ankles[(size_t)l * E + X + s] = mat_pos(&model[ld[l].ankle]);
            finite = finite && skm_vec3_finite(res->legs[l].heel[s]) && skm_vec3_finite(res->legs[l].toe[s]);
        }
        if (!finite)
            r = sk_error_set(err, SK_ERR_INVALID_DATA, "%s: the pose at t = %g s is not finite", cname, t);
    }
    if (r == SK_OK) {
        /* Root motion: a constant velocity, removed from every point. Its
         * horizontal part is the clip's root motion; its vertical part is 0
         * for a loop and, for a cycle cut from a capture, the hips' rise over
         * the cycle (a capture floor that is not level: the CMU walks 02_01
         * and 07_01 climb 2-3 cm per cycle), removed so that the heights
         * close over the cycle as the seed's flat ground assumes. */
        sk_vec3 v = sk_vec3_scale(sk_vec3_sub(hips[N], hips[0]), (float)(1.0 / dur));
        res->root_velocity = o.backward ? sk_vec3_scale(ground(v), -1) : ground(v);
        for (uint32_t l = 0; l < leg_count; l++) {
            sk_leg_analysis *L = &res->legs[l];
            sk_vec3 *ball = balls + (size_t)l * E + X, *ankle = ankles + (size_t)l * E + X; /* [s], s in [-X, N + X] */
            for (uint32_t s = 0; s < N; s++) {
                sk_vec3 shift = sk_vec3_scale(v, (float)(dur * (double)s / (double)N));
                L->heel[s] = sk_vec3_sub(L->heel[s], shift);
                L->toe[s] = sk_vec3_sub(L->toe[s], shift);
                ball[s] = sk_vec3_sub(ball[s], shift);
                ankle[s] = sk_vec3_sub(ankle[s], shift);
            }
            if (o.backward) /* sample s of the reversed clip is forward sample (N - s) mod N */
                for (uint32_t s = 1; s < N - s; s++) {
                    sk_vec3 h = L->heel[s], t = L->toe[s], b = ball[s], an = ankle[s];
                    L->heel[s] = L->heel[N - s];
                    L->toe[s] = L->toe[N - s];
                    ball[s] = ball[N - s];
                    ankle[s] = ankle[N - s];
                    L->heel[N - s] = h;
                    L->toe[N - s] = t;
                    ball[N - s] = b;
                    ankle[N - s] = an;
                }
            memcpy(L->name, ld[l].name, sizeof L->name);
            L->hip_joint = ld[l].hip;
            L->knee_joint = ld[l].knee;
            L->ankle_joint = ld[l].ankle;
            L->toe_joint = ld[l].toe;
            L->heel_point = ld[l].heel;
            L->toe_point = ld[l].toe_tip;
            L->leg_length = chain_length(skel, &ld[l]);
            if (!(L->leg_length > 0))
                r = sk_error_set(err, SK_ERR_INVALID_DATA, "%s: zero leg length at rest", L->name);
            sk_vec3 *hx = ext_mem + X, *tx = ext_mem + E + X;
            bool cut = (o.cycle_start != 0 || o.cycle_end != 0) &&
                       (t_start > 0 || t_start + dur < sk_clip_duration(clip) * (1 - 1e-9));
            if (r == SK_OK)
                r = extend_leg(skel, clip, &ld[l], L, N, X, t_start, dur, v, o.backward, cut, &pose, need, model, hx, tx,
                               ball, ankle, err);
            float rise = (float)(v.y * dur / N) * (o.backward ? -1.0f : 1.0f);
            skl_leg_ext ext = {hx - X, tx - X, ball - X, ankle - X, X, K, dur / N, res->root_velocity, rise};
            if (r == SK_OK) r = analyze_leg(res, L, &o, &ext, err);
            if (r == SK_OK) r = footprint_stride(skel, clip, &ld[l], res, L, &o, t_start, dur, &pose, need, model, err);
            if (r == SK_OK && !(L->stride_velocity > 0))
                r = sk_error_set(err, SK_ERR_INVALID_DATA,
                                 "%s: the foot does not move while on the ground, and no footprints one cycle apart "
                                 "give a stride (a clip in place without root motion?)",
                                 L->name);
            if (r != SK_OK) break;
        }
    }
    sk_free(alloc, mem, scratch);
    if (r != SK_OK) {
        sk_motion_analysis_destroy(res);
        return r;
    }
    /* (16)-(18): the cycle from the legs' strides. */
    double vsum = 0;
    sk_vec3 dsum = sk_vec3_make(0, 0, 0);
    for (uint32_t l = 0; l < leg_count; l++) {
        vsum += res->legs[l].stride_velocity;
        dsum = sk_vec3_add(dsum, res->legs[l].stride_direction);
    }
    res->cycle_velocity = (float)(vsum / leg_count);
    res->cycle_speed = (float)(res->cycle_velocity / dur);
    res->cycle_distance = res->cycle_velocity;
    res->cycle_direction = skm_vec3_len(dsum) > 0 ? sk_vec3_normalize(dsum) : dsum;
    *out = res;
    return SK_OK;
}

sk_result sk_motion_analyze_backward(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                                     uint32_t leg_count, const sk_motion_analysis_options *opt,
                                     const sk_allocator *alloc, sk_motion_analysis **out, sk_error *err) {
    sk_motion_analysis_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    o.backward = true;
    return sk_motion_analyze(skel, clip, legs, leg_count, &o, alloc, out, err);
}

/* ---- best cycle of a capture ------------------------------------------------------ */

/* sk_motion_find_cycle: a cycle is one stride of each foot. About the
 * hips, an ankle goes forward and back once in a cycle: the path it
 * travels is about twice the longest distance between two of its places
 * (the window's diameter, found by two sweeps); over k cycles, 2k times.
 * A window whose ankle travels more than CYCLE_STRIDES_MAX diameters holds
 * more than one stride (a capture that slows down, whose poses come back
 * after several small steps). */
#define CYCLE_STRIDES_MAX 3.0
static bool one_stride(const sk_vec3 *rel, const double *path, uint32_t i, uint32_t lag, uint32_t legs) {
    for (uint32_t l = 0; l < legs; l++) {
        sk_vec3 a = rel[(size_t)i * legs + l], b = a;
        float da = 0, db = 0;
        for (uint32_t k = i; k <= i + lag; k++) {
            sk_vec3 d = sk_vec3_sub(rel[(size_t)k * legs + l], a);
            float q = sk_vec3_dot(d, d);
            if (q > da) da = q, b = rel[(size_t)k * legs + l];
        }
        for (uint32_t k = i; k <= i + lag; k++) {
            sk_vec3 d = sk_vec3_sub(rel[(size_t)k * legs + l], b);
            float q = sk_vec3_dot(d, d);
            if (q > db) db = q;
        }
        double walked = path[(size_t)(i + lag) * legs + l] - path[(size_t)i * legs + l];
        if (walked > CYCLE_STRIDES_MAX * sqrt(db)) return false;
    }
    return true;
}

sk_result sk_motion_find_cycle(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                               uint32_t leg_count, double min_duration, const sk_allocator *alloc, double *start,
                               double *end, sk_error *err) {
    if (!skel || !clip || !legs || !start || !end)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "find cycle: NULL argument");
    *start = *end = 0;
    const char *cname = sk_clip_name(clip) && sk_clip_name(clip)[0] ? sk_clip_name(clip) : "(unnamed clip)";
    if (leg_count < 1 || leg_count > SK_ANALYSIS_MAX_LEGS)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: %u legs (1 to %u)", cname, leg_count,
                            SK_ANALYSIS_MAX_LEGS);
    for (uint32_t l = 0; l < leg_count; l++)
        if (legs[l].hip < 0 || (uint32_t)legs[l].hip >= skel->joint_count || legs[l].ankle < 0 ||
            (uint32_t)legs[l].ankle >= skel->joint_count)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: leg %u: hip joint %d or ankle joint %d out of range",
                                cname, l, legs[l].hip, legs[l].ankle);
    if (!isfinite(min_duration) || min_duration < 0 || min_duration > 3600) /* cast to a sample count below */
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "%s: minimum cycle duration %g s", cname, min_duration);
    if (min_duration == 0) min_duration = 0.4;
    double dur = sk_clip_duration(clip);
    const double rate = 60.0;
    if (!isfinite(dur) || dur > SK_ANALYSIS_MAX_CYCLE)
        return sk_error_set(err, SK_ERR_LIMIT, "%s: clip of %g s: longer than an hour", cname, dur);
    uint32_t n = (uint32_t)floor(dur * rate) + 1, lag_min = (uint32_t)ceil(min_duration * rate);
    if (n < lag_min + 3)
        return sk_error_set(err, SK_ERR_INVALID_DATA, "%s: clip of %g s is too short for a cycle of at least %g s",
                            cname, dur, min_duration);
    /* The body: the subtree of the legs' hips' lowest common ancestor (not
     * the armature or mesh nodes above it, which stay behind). */
    int32_t lca = skel->parents[legs[0].hip] >= 0 ? skel->parents[legs[0].hip] : legs[0].hip;
    for (;;) {
        bool all = true;
        for (uint32_t l = 0; l < leg_count && all; l++)
            all = legs[l].hip == lca || is_ancestor(skel, lca, legs[l].hip);
        if (all || skel->parents[lca] < 0) break;
        lca = skel->parents[lca];
    }
    uint32_t J = skel->joint_count;
    size_t dsz = (size_t)n * J * sizeof(sk_vec3); /* J <= 1e6, n <= 216001: fits in 64 bits */
    size_t need_pose = (size_t)J * sizeof(sk_transform), need_model = (size_t)J * sizeof(sk_mat4);
    size_t psz = (size_t)n * leg_count * (sizeof(double) + sizeof(sk_vec3));
    size_t total = need_pose + need_model + dsz + psz;
    char *mem = sk_alloc(alloc, total);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", cname);
    sk_transform *local = (sk_transform *)mem;
    sk_mat4 *model = (sk_mat4 *)(mem + need_pose);
    sk_vec3 *desc = (sk_vec3 *)(mem + need_pose + need_model + psz); /* after the doubles: aligned */
    /* Stepping: per leg the path the ankle travels about the hips
     * (prefix sums); each half of a cycle must carry each ankle at least a
     * quarter of the leg's length, so that standing still (whose poses all
     * match) is no cycle and neither is a stretch from standing to standing
     * with a few steps between. Cycles are at most SK_ANALYSIS_MAX_GAIT_CYCLE
     * long (the slowest walks take under 2 s). */
    uint32_t lag_max = (uint32_t)(SK_ANALYSIS_MAX_GAIT_CYCLE * rate);
    double *path = (double *)(mem + need_pose + need_model); /* 8-aligned: pose and model sizes are */
    sk_vec3 *rel = (sk_vec3 *)(path + (size_t)n * leg_count); /* each ankle about the hips, on the ground */
    float leg_len[SK_ANALYSIS_MAX_LEGS];
    for (uint32_t l = 0; l < leg_count; l++) {
        sk_mat4 h = rest_model(skel, legs[l].hip), an = rest_model(skel, legs[l].ankle);
        leg_len[l] = skm_vec3_len(sk_vec3_sub(mat_pos(&an), mat_pos(&h)));
    }
    sk_pose pose = sk_pose_view(local, J, NULL, 0);
    sk_result r = SK_OK;
    for (uint32_t i = 0; i < n && r == SK_OK; i++) {
        double t = fmin((double)i / rate, dur);
        r = sk_clip_sample(clip, skel, t, SK_LOOP_CLAMP, &pose, err);
        if (r == SK_OK) r = sk_local_to_model(skel, &pose, NULL, model, J, err);
        if (r != SK_OK) break;
        sk_vec3 hm = sk_vec3_make(0, 0, 0);
        for (uint32_t l = 0; l < leg_count; l++) hm = sk_vec3_add(hm, mat_pos(&model[legs[l].hip]));
        hm = ground(sk_vec3_scale(hm, 1.0f / (float)leg_count));
        for (uint32_t j = 0; j < J; j++)
            desc[(size_t)i * J + j] = ((int32_t)j == lca || is_ancestor(skel, lca, (int32_t)j))
                                          ? sk_vec3_sub(mat_pos(&model[j]), hm)
                                          : sk_vec3_make(0, 0, 0);
        for (uint32_t l = 0; l < leg_count; l++) {
            sk_vec3 p = ground(sk_vec3_sub(mat_pos(&model[legs[l].ankle]), hm));
            double step = i > 0 ? skm_vec3_len(sk_vec3_sub(p, rel[(size_t)(i - 1) * leg_count + l])) : 0;
            path[(size_t)i * leg_count + l] = (i ? path[(size_t)(i - 1) * leg_count + l] : 0) + step;
            rel[(size_t)i * leg_count + l] = p;
        }
    }
    /* Best match per lag: positions and velocities (one-sample differences). */
    double best = INFINITY;
    uint32_t best_lag = 0, best_i = 0;
    double *lag_cost = NULL;
    uint32_t *lag_at = NULL;
    size_t lsz = (size_t)n * (sizeof(double) + sizeof(uint32_t));
    char *lmem = r == SK_OK ? sk_alloc(alloc, lsz) : NULL;
    if (r == SK_OK && !lmem) r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s: out of memory", cname);
    if (r == SK_OK) {
        lag_cost = (double *)lmem;
        lag_at = (uint32_t *)(lmem + (size_t)n * sizeof(double));
        for (uint32_t lag = lag_min; lag + 1 < n; lag++) {
            lag_cost[lag] = INFINITY;
            for (uint32_t i = 0; i + lag + 1 < n; i++) {
                bool steps = lag <= lag_max;
                uint32_t h = i + lag / 2;
                for (uint32_t l = 0; l < leg_count && steps; l++)
                    steps = path[(size_t)h * leg_count + l] - path[(size_t)i * leg_count + l] >= 0.25 * leg_len[l] &&
                            path[(size_t)(i + lag) * leg_count + l] - path[(size_t)h * leg_count + l] >=
                                0.25 * leg_len[l];
                if (!steps) continue;
                const sk_vec3 *a = desc + (size_t)i * J, *b = desc + (size_t)(i + lag) * J;
                /* A cycle brings each foot back to where it was about the
                 * hips: half a cycle, which swaps the feet, is none however
                 * close the rest of the body comes. */
                for (uint32_t l = 0; l < leg_count && steps; l++) {
                    int32_t k = legs[l].ankle;
                    sk_vec3 d = sk_vec3_sub(a[k], b[k]), sa = sk_vec3_sub(a[J + k], a[k]), sb = sk_vec3_sub(b[J + k], b[k]);
                    sk_vec3 v = sk_vec3_scale(sk_vec3_sub(sa, sb), (float)rate); /* per second */
                    float va = (float)rate * skm_vec3_len(sa), vb = (float)rate * skm_vec3_len(sb);
                    float m = CYCLE_FOOT_MATCH * leg_len[l], mv = CYCLE_FOOT_SPEED * leg_len[l] + 0.5f * (va + vb);
                    steps = sk_vec3_dot(d, d) <= m * m && sk_vec3_dot(v, v) <= mv * mv;
                }
                if (!steps) continue;
                double c = 0;
                for (uint32_t j = 0; j < J; j++) {
                    sk_vec3 dp = sk_vec3_sub(a[j], b[j]);
                    sk_vec3 dv = sk_vec3_sub(sk_vec3_sub(a[J + j], a[j]), sk_vec3_sub(b[J + j], b[j]));
                    c += sk_vec3_dot(dp, dp) + 4.0 * sk_vec3_dot(dv, dv);
                }
                if (c < lag_cost[lag]) { lag_cost[lag] = c; lag_at[lag] = i; }
            }
            if (lag_cost[lag] < best) best = lag_cost[lag];
        }
        best = INFINITY; /* the best interior minimum */
        double best_one = INFINITY; /* ... and the best of one stride */
        for (uint32_t lag = lag_min + 1; lag + 2 < n; lag++)
            if (lag_cost[lag] <= lag_cost[lag - 1] && lag_cost[lag] <= lag_cost[lag + 1]) {
                if (lag_cost[lag] < best) best = lag_cost[lag];
                if (lag_cost[lag] < best_one && one_stride(rel, path, lag_at[lag], lag, leg_count))
                    best_one = lag_cost[lag];
            }
        if (!isfinite(best_one)) {
            r = sk_error_set(err, SK_ERR_INVALID_DATA,
                             "%s: no cycle found (no pose comes back within the clip's %.2f s)", cname, dur);
        } else {
            /* The shortest lag of one stride that is a local minimum within 25% of the best of
             * all; when none is, within 25% of the best of one stride (which is). */
            for (int pass = 0; pass < 2 && !best_lag; pass++) {
                double limit = 1.25 * (pass ? best_one : best) + 1e-12;
                for (uint32_t lag = lag_min; lag + 1 < n; lag++) {
                    /* an interior minimum: short lags match trivially (a pose is
                     * close to the next ones) and are not cycles */
                    bool local_min = lag > lag_min && lag_cost[lag] <= lag_cost[lag - 1] &&
                                     (lag + 2 >= n || lag_cost[lag] <= lag_cost[lag + 1]);
                    if (local_min && lag_cost[lag] <= limit && one_stride(rel, path, lag_at[lag], lag, leg_count)) {
                        best_lag = lag;
                        best_i = lag_at[lag];
                        break;
                    }
                }
            }
            *start = best_i / rate;
            *end = fmin((best_i + best_lag) / rate, dur);
        }
    }
    if (lmem) sk_free(alloc, lmem, lsz);
    sk_free(alloc, mem, total);
    return r;
}
