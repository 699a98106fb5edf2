/* Harness: what `skelanim locomote --procedural` parses and runs, with
 * everything from the input: the --path text and the --terrain spec as the
 * tool reads them (sk_path_parse, the tool's own terrain parser; specs that
 * name a .glb or .gltf file are left out), the speed, turn rate and frame
 * rate, then the path follower driving the IK-only walker on the mannequin
 * for at most 240 frames (so one input's time is bounded), with a jump at
 * any time. Promises: a parsed path and terrain give a run whose follower
 * position, walker state and pose stay finite, and whose follower never
 * finishes far from the path's last point; every refusal says why. */
#include "fuzz_common.h"
#include "terrain_spec.h" /* the CLI's --terrain parser (cli/) */

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_bytes head, tail;
    fz_split(data, size, SK_FUZZ_PARAM_SEP, &head, &tail); /* head: the path text; tail: the terrain spec, then numbers */
    char path[512], spec[128];
    size_t pn = head.n < sizeof path - 1 ? head.n : sizeof path - 1;
    if (pn) memcpy(path, head.p, pn);
    path[pn] = 0;
    size_t sn = 0;
    while (sn < tail.n && sn < sizeof spec - 1 && tail.p[sn] != '\n') sn++;
    if (sn) memcpy(spec, tail.p, sn);
    spec[sn] = 0;
    fz_bytes b = {tail.n ? tail.p + (sn < tail.n ? sn + 1 : sn) : NULL, sn < tail.n ? tail.n - sn - 1 : 0};

    float pts[2 * SK_PATH_MAX_POINTS];
    sk_error err = {0};
    uint32_t np = sk_path_parse(path, pts, SK_PATH_MAX_POINTS, &err);
    if (!np) {
        if (!err.message[0]) fz_fail("path refused without a message");
        return 0;
    }
    sk_path_follower pf;
    sk_path_follower_desc pd = {pts, np, fz_float(&b, 0.001f, 10.0f), fz_float(&b, 0.01f, 60.0f), 0, 0, NAN, false};
    if (sk_path_follower_init(&pf, &pd, &err) != SK_OK) {
        if (!err.message[0]) fz_fail("path follower refused without a message");
        return 0;
    }
    cli_terrain *terrain = NULL;
    bool file = strstr(spec, ".glb") || strstr(spec, ".gltf") || strstr(spec, ".GLB") || strstr(spec, ".GLTF");
    if (sn && !file && cli_terrain_parse(spec, &terrain, &err) != SK_OK) {
        if (!err.message[0]) fz_fail("terrain '%s' refused without a message", spec);
        return 0;
    }
    const sk_asset *m = fz_mannequin();
    const sk_skeleton *skel = m->skeleton;
    sk_procedural_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = skel;
    if (sk_legs_find(skel, d.legs, 2) != 2) fz_fail("the mannequin has no two legs");
    d.body_joint = -1;
    if (terrain) d.terrain = terrain->terrain;
    sk_procedural *P = NULL;
    sk_pose pose;
    bool have_pose = sk_pose_alloc(skel, NULL, &pose, NULL) == SK_OK;
    if (have_pose && sk_procedural_create(&d, NULL, &P, &err) == SK_OK &&
        sk_procedural_reset(P, pf.x, pf.z, pf.yaw, &err) == SK_OK) {
        double fps = fz_float(&b, 10.0f, 1000.0f);
        if (!(fps >= 10.0 && fps <= 1000.0)) fps = 60.0; /* the tool's --fps range */
        uint32_t jump_at = fz_u8(&b);
        for (uint32_t k = 0; k < 240; k++) {
            sk_path_follower_step(&pf, 1.0 / fps);
            if (!isfinite(pf.x) || !isfinite(pf.z) || !isfinite(pf.yaw))
                fz_fail("path \"%s\": follower at (%g, %g) yaw %g", path, (double)pf.x, (double)pf.z, (double)pf.yaw);
            if (k == jump_at) (void)sk_procedural_jump(P);
            if (sk_procedural_update(P, 1.0 / fps, pf.x, pf.z, pf.yaw, &pose, &err) != SK_OK) break;
            if (!fz_pose_finite(&pose)) fz_fail("path \"%s\", terrain \"%s\": non-finite pose", path, spec);
            const sk_procedural_state *st = sk_procedural_get_state(P);
            if (!isfinite(st->position.x) || !isfinite(st->position.y) || !isfinite(st->position.z))
                fz_fail("path \"%s\", terrain \"%s\": walker at a non-finite position", path, spec);
            if (pf.finished) {
                float ex = pf.points[2 * pf.count - 2], ez = pf.points[2 * pf.count - 1];
                if (hypotf(pf.x - ex, pf.z - ez) > 0.05f)
                    fz_fail("path \"%s\": finished at (%g, %g), %g m from its end", path, (double)pf.x, (double)pf.z,
                            (double)hypotf(pf.x - ex, pf.z - ez));
                break;
            }
        }
    }
    sk_procedural_destroy(P);
    if (have_pose) sk_pose_free(&pose, NULL);
    cli_terrain_destroy(terrain);
    return 0;
}
