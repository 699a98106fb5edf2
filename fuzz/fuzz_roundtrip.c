/* Harness: the .glb writer round trip. Input as fuzz_gltf (a .gltf or .glb,
 * optionally SK_FUZZ_BIN_SEP and the external buffer). Whatever loads must
 * write (unless the reader warned: then the writer may refuse what the reader
 * only accepted with a warning, issue #14 finding 4) and load again with the
 * same nodes, meshes, skins and clips, and every clip must sample to the same
 * pose at the same times (within float rounding of a renormalised rotation). */
#include "fuzz_common.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int close_enough(float a, float b) {
    if (a == b) return 1;
    float m = fabsf(a) > fabsf(b) ? fabsf(a) : fabsf(b);
    return fabsf(a - b) <= 4e-6f * (m > 1.0f ? m : 1.0f);
}

static int written_primitive(const sk_primitive *p) { return p->vertex_count > 0 && p->positions; }

static bool mesh_written(const sk_asset *a, int32_t m) {
    if (m < 0) return false;
    for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++)
        if (written_primitive(&a->meshes[m].primitives[p])) return true;
    return false;
}

/* The writer leaves out a clip none of whose tracks it writes (weight tracks
 * of a node whose mesh is left out are dropped). */
static bool clip_written(const sk_asset *a, const sk_clip *clip) {
    for (uint32_t t = 0; t < sk_clip_track_count(clip); t++) {
        sk_track_info info;
        if (!sk_clip_track_info(clip, t, &info)) continue;
        if (info.path != SK_PATH_WEIGHTS || mesh_written(a, a->joint_mesh[info.joint])) return true;
    }
    return false;
}

static void compare(const sk_asset *a, const sk_asset *b) {
    /* The writer leaves out primitives without vertices (their data was not
     * in the file, sk_primitive.missing_data) and meshes left with none
     * (src/io/gltf_write.c, gw_check_asset): compare with what it writes. */
    uint32_t written = 0;
    for (uint32_t m = 0; m < a->mesh_count; m++) {
        uint32_t prims = 0;
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) prims += written_primitive(&a->meshes[m].primitives[p]);
        if (prims == 0) continue;
        if (written >= b->mesh_count) fz_fail("round trip lost mesh %u", m);
        const sk_mesh *mb = &b->meshes[written++];
        if (mb->primitive_count != prims) fz_fail("round trip changed mesh %u's primitive count: %u -> %u", m, prims, mb->primitive_count);
        uint32_t q = 0;
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) {
            const sk_primitive *pa = &a->meshes[m].primitives[p];
            if (!written_primitive(pa)) continue;
            const sk_primitive *pb = &mb->primitives[q++];
            if (pa->vertex_count != pb->vertex_count || pa->index_count != pb->index_count ||
                pa->influence_count != pb->influence_count || pa->target_count != pb->target_count)
                fz_fail("round trip changed mesh %u primitive %u: vertices %u -> %u, indices %u -> %u, influences %u -> %u, "
                        "targets %u -> %u", m, p, pa->vertex_count, pb->vertex_count, pa->index_count, pb->index_count,
                        pa->influence_count, pb->influence_count, pa->target_count, pb->target_count);
        }
    }
    uint32_t clips = 0;
    for (uint32_t c = 0; c < a->clip_count; c++) clips += clip_written(a, a->clips[c]);
    if (a->node_count != b->node_count || written != b->mesh_count || a->skin_count != b->skin_count ||
        clips != b->clip_count)
        fz_fail("round trip changed the counts: nodes %u/%u meshes written %u/%u skins %u/%u clips written %u/%u",
                a->node_count, b->node_count, written, b->mesh_count, a->skin_count, b->skin_count, clips,
                b->clip_count);
    const sk_skeleton *sa = a->skeleton, *sb = b->skeleton;
    for (uint32_t j = 0; j < sa->joint_count; j++)
        if (sa->parents[j] != sb->parents[j]) fz_fail("round trip changed the parent of joint %u", j);
    bool same_weights = sa->weight_total == sb->weight_total;
    if (!same_weights && written == a->mesh_count)
        fz_fail("round trip changed the morph weight count: %u -> %u", sa->weight_total, sb->weight_total);
    sk_error err = {0};
    sk_pose pa, pb;
    if (sk_pose_alloc(sa, NULL, &pa, &err) != SK_OK) return;
    if (sk_pose_alloc(sb, NULL, &pb, &err) != SK_OK) {
        sk_pose_free(&pa, NULL);
        return;
    }
    uint32_t cb = 0; /* b's clip for a's clip c */
    for (uint32_t c = 0; c <= a->clip_count && c < 8; c++) {
        if (c < a->clip_count && !clip_written(a, a->clips[c])) continue;
        const sk_clip *ca = c < a->clip_count ? a->clips[c] : NULL, *cbp = ca ? b->clips[cb++] : NULL;
        double d = ca ? sk_clip_duration(ca) : 0.0;
        if (ca && sk_clip_duration(cbp) != d)
            fz_fail("round trip changed clip %u's duration: %.9g -> %.9g", c, d, sk_clip_duration(cbp));
        for (int k = 0; k < 7; k++) {
            double t = d * k / 6.0;
            if (ca) {
                if (sk_clip_sample(ca, sa, t, SK_LOOP_CLAMP, &pa, &err) != SK_OK ||
                    sk_clip_sample(cbp, sb, t, SK_LOOP_CLAMP, &pb, &err) != SK_OK)
                    fz_fail("sampling clip %u: %s", c, err.message);
            } else {
                sk_pose_rest(sa, &pa, &err);
                sk_pose_rest(sb, &pb, &err);
            }
            for (uint32_t j = 0; j < sa->joint_count; j++) {
                const sk_transform *x = &pa.local[j], *y = &pb.local[j];
                float dot = x->r.x * y->r.x + x->r.y * y->r.y + x->r.z * y->r.z + x->r.w * y->r.w;
                float sgn = dot < 0 ? -1.0f : 1.0f;
                if (!close_enough(x->t.x, y->t.x) || !close_enough(x->t.y, y->t.y) || !close_enough(x->t.z, y->t.z) ||
                    !close_enough(x->s.x, y->s.x) || !close_enough(x->s.y, y->s.y) || !close_enough(x->s.z, y->s.z) ||
                    !close_enough(x->r.x, sgn * y->r.x) || !close_enough(x->r.y, sgn * y->r.y) ||
                    !close_enough(x->r.z, sgn * y->r.z) || !close_enough(x->r.w, sgn * y->r.w))
                    fz_fail("round trip changed joint %u of clip %u at t=%.9g: t (%g %g %g) -> (%g %g %g), "
                            "r (%g %g %g %g) -> (%g %g %g %g), s (%g %g %g) -> (%g %g %g)",
                            j, c, t, x->t.x, x->t.y, x->t.z, y->t.x, y->t.y, y->t.z, x->r.x, x->r.y, x->r.z, x->r.w,
                            y->r.x, y->r.y, y->r.z, y->r.w, x->s.x, x->s.y, x->s.z, y->s.x, y->s.y, y->s.z);
            }
            for (uint32_t w = 0; same_weights && w < pa.weight_count; w++)
                if (!close_enough(pa.weights[w], pb.weights[w]))
                    fz_fail("round trip changed morph weight %u of clip %u at t=%.9g: %g -> %g", w, c, t,
                            pa.weights[w], pb.weights[w]);
        }
    }
    sk_pose_free(&pa, NULL);
    sk_pose_free(&pb, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_files files;
    fz_files_init(&files, "model.gltf", data, size);
    uint32_t warnings = 0;
    sk_gltf_options o;
    fz_gltf_options(&o, &files, &warnings);
    sk_asset *asset = NULL, *again = NULL;
    sk_error err = {0};
    if (sk_gltf_load_file("model.gltf", &o, &asset, &err) != SK_OK) return 0;
    void *glb = NULL;
    size_t glb_size = 0;
    sk_result r = sk_glb_write_memory(asset, &glb, &glb_size, &err);
    if (r == SK_ERR_OUT_OF_MEMORY || (r == SK_ERR_INVALID_ARGUMENT && warnings > 0)) {
        sk_asset_destroy(asset);
        return 0;
    }
    if (r != SK_OK) fz_fail("a loaded asset (no reader warning) was not written: %s", err.message);
    /* Loaded beside the same files: the writer keeps the uri of an external
     * image whose bytes it cannot embed (no MIME type, none recognised). */
    uint32_t warnings2 = 0;
    sk_gltf_options o2;
    fz_gltf_options(&o2, &files, &warnings2);
    o2.max_decoded_bytes = 0;
    r = sk_gltf_load_memory(glb, glb_size, ".", &o2, &again, &err);
    if (r != SK_OK && r != SK_ERR_OUT_OF_MEMORY) fz_fail("the written .glb does not load: %s", err.message);
    if (r == SK_OK) {
        compare(asset, again);
        sk_asset_destroy(again);
    }
    sk_free(sk_asset_allocator(asset), glb, glb_size);
    sk_asset_destroy(asset);
    return 0;
}
