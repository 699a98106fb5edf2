/* skelanim — the way a clip's body faces over a stretch of time
 * (sk_motion_cycle_facing, locomotion/analysis.h). A capture's subject walks
 * wherever the studio floor let them: turned to face +Z, the clip's cycle is
 * a forward walk in the analysis' character space (docs/locomotion.md,
 * "Which way a capture faces"). */
#include "core/internal.h"
#include "core/math_inline.h"
#include "skelanim/core/pose.h"
#include "skelanim/locomotion/analysis.h"

#include <math.h>
#include <string.h>

#define FACING_RATE 60.0 /* samples per second */

sk_result sk_motion_cycle_facing(const sk_skeleton *skel, const sk_clip *clip, const sk_leg_desc *legs,
                                 uint32_t leg_count, double start, double end, const sk_allocator *alloc, float *yaw,
                                 float *travel, float *spread, sk_error *err) {
    if (!skel || !clip || !legs || !yaw)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_motion_cycle_facing: NULL argument");
    *yaw = 0.0f;
    if (spread) *spread = 0.0f;
    if (travel) *travel = 0.0f;
    if (leg_count < 2)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_motion_cycle_facing: %u leg(s): two are needed", leg_count);
    sk_leg_desc ld[2];
    memcpy(ld, legs, sizeof ld);
    for (int l = 0; l < 2; l++) {
        sk_result r = sk_leg_default_points(skel, &ld[l], err);
        if (r != SK_OK) return r;
    }
    double dur = sk_clip_duration(clip);
    if (!isfinite(start) || !isfinite(end) || !isfinite(dur))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_motion_cycle_facing: times %g..%g are not finite", start,
                            end);
    if (end <= start) start = 0.0, end = dur;
    if (start < 0.0 || end > dur * (1.0 + 1e-9) + 1e-9)
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                            "sk_motion_cycle_facing: %g..%g s is not inside the clip (0..%g s)", start, end, dur);
    if (end - start > SK_ANALYSIS_MAX_CYCLE)
        return sk_error_set(err, SK_ERR_LIMIT, "sk_motion_cycle_facing: %g s: longer than an hour", end - start);
    uint32_t J = skel->joint_count;
    uint32_t n = (uint32_t)floor((end - start) * FACING_RATE) + 2; /* both ends */
    size_t bytes = (size_t)J * (sizeof(sk_transform) + sizeof(sk_mat4));
    const sk_allocator *a = sk_allocator_or_default(alloc);
    char *mem = (char *)sk_alloc(a, bytes);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "sk_motion_cycle_facing: out of memory");
    sk_transform *local = (sk_transform *)mem;
    sk_mat4 *model = (sk_mat4 *)(mem + (size_t)J * sizeof(sk_transform));
    sk_pose pose = sk_pose_view(local, J, NULL, 0);
    double hx = 0, hz = 0, fx = 0, fz = 0; /* sums of unit directions: the hips' and the feet's */
    uint32_t counted = 0;
    sk_vec3 mid0 = sk_vec3_make(0, 0, 0), mid1 = mid0; /* the hips' midpoint at the two ends */
    sk_result r = SK_OK;
    for (uint32_t i = 0; i < n && r == SK_OK; i++) {
        double t = i + 1 == n ? end : start + (double)i / FACING_RATE;
        r = sk_clip_sample(clip, skel, t, SK_LOOP_CLAMP, &pose, err);
        if (r == SK_OK) r = sk_local_to_model(skel, &pose, NULL, model, J, err);
        if (r != SK_OK) break;
        sk_vec3 h0 = sk_mat4_transform_point(&model[ld[0].hip], sk_vec3_make(0, 0, 0));
        sk_vec3 h1 = sk_mat4_transform_point(&model[ld[1].hip], sk_vec3_make(0, 0, 0));
        /* forward = (hip 0 - hip 1) x up, horizontal: +Z for a left hip at +X */
        double lx = (double)h0.x - h1.x, lz = (double)h0.z - h1.z, len = sqrt(lx * lx + lz * lz);
        if (!isfinite(len)) {
            r = sk_error_set(err, SK_ERR_INVALID_DATA, "sk_motion_cycle_facing: %s: the pose at %g s is not finite",
                             sk_clip_name(clip), t);
            break;
        }
        if (len > 1e-9) hx += -lz / len, hz += lx / len, counted++;
        mid1 = sk_vec3_scale(sk_vec3_add(h0, h1), 0.5f);
        if (i == 0) mid0 = mid1;
        for (int l = 0; l < 2; l++) {
            int32_t tj = ld[l].toe >= 0 ? ld[l].toe : ld[l].ankle;
            sk_vec3 heel = sk_mat4_transform_point(&model[ld[l].ankle], ld[l].heel);
            sk_vec3 toe = sk_mat4_transform_point(&model[tj], ld[l].toe_tip);
            double dx = (double)toe.x - heel.x, dz = (double)toe.z - heel.z, dl = sqrt(dx * dx + dz * dz);
            if (dl > 1e-9 && isfinite(dl)) fx += dx / dl, fz += dz / dl;
        }
    }
    sk_free(a, mem, bytes);
    if (r != SK_OK) return r;
    double m = sqrt(hx * hx + hz * hz);
    if (counted == 0 || !(m > 1e-6 * counted))
        return sk_error_set(err, SK_ERR_INVALID_DATA,
                            "sk_motion_cycle_facing: %s: the legs' hips stand one above the other (no facing)",
                            sk_clip_name(clip));
    if (hx * fx + hz * fz < 0) hx = -hx, hz = -hz; /* the legs given right first */
    *yaw = (float)atan2(hx, hz);
    if (travel) { /* the facing when the hips come back where they were (under a millimetre) */
        double dx = (double)mid1.x - mid0.x, dz = (double)mid1.z - mid0.z;
        *travel = dx * dx + dz * dz > 1e-6 ? (float)atan2(dx, dz) : *yaw;
    }
    if (spread) *spread = (float)fmax(0.0, 1.0 - m / counted);
    return SK_OK;
}
